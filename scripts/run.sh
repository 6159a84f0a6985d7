#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# The main job (README): the benchmark report. Installs what is missing, builds the suite's
# programs in Release (build/bench) and the peers (into the bench cache, outside the
# repository), starts a real control plane on loopback with server-side response compression
# off, seeds 500 pods and a log-emitter, runs every adapter and scenario in fresh processes
# next to the physical limits L1/L2, prints progress and the headline table, and writes
# benchmarks/report.md, report.csv and charts/. Then the library-defaults pass (compression on,
# each library as it comes; one round, three scenarios) writes benchmarks/defaults/. Last, the
# runtime pass: 10,000 pods on twelve simulated nodes, kubex's reflector and watch beside
# client-go's informer and kube-rs's reflector (benchmarks/suite/runtime.py) into
# benchmarks/runtime/.
#
#   scripts/run.sh [--no-defaults-pass] [--no-runtime-pass] [run.py options]
#       e.g. --full, --rounds 3, --adapters kubex,L1,client-go, --scenarios list_large
#   scripts/run.sh --setup-only [--adapters ...]
#       only the set-up: system packages and the peers (scripts/test.sh runs this, so CI
#       exercises the main job's set-up on every run)
# See benchmarks/suite/run.py --help.
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
cd "$root"

defaults_pass=1
runtime_pass=1
setup_only=0
args=()
for a in "$@"; do
  case "$a" in
    --no-defaults-pass) defaults_pass=0 ;;
    --no-runtime-pass) runtime_pass=0 ;;
    --setup-only) setup_only=1 ;;
    *) args+=("$a") ;;
  esac
done

export CCACHE_BASEDIR="$root" CCACHE_NOHASHDIR=true  # cache hits across clones
echo "==> dependencies"
scripts/install-deps.sh --bench
if [ "$setup_only" = 1 ]; then
  echo "==> peers' set-up"
  exec python3 benchmarks/suite/run.py --setup-only "${args[@]}"
fi
echo "==> build (Release, build/bench)"
cmake --preset bench >/dev/null
# kubex_libraries too (the suite needs all but kubex::testing), so that build/bench can be
# installed (cmake --install build/bench --prefix ...).
cmake --build build/bench -j "$(nproc)" --target kubex_bench_suite kubex_libraries
echo "==> primary pass: control plane with compression off, seeding, benchmark"
scripts/with-testenv.sh --feature-gates=APIResponseCompression=false -- \
  python3 benchmarks/suite/run.py --build-dir build/bench --out benchmarks \
    --results build/bench/results.jsonl "${args[@]}"
if [ "$defaults_pass" = 1 ]; then
  echo "==> library-defaults pass: control plane with compression on"
  scripts/with-testenv.sh -- \
    python3 benchmarks/suite/run.py --build-dir build/bench --out benchmarks/defaults \
      --results build/bench/results-defaults.jsonl "${args[@]}" --library-defaults --rounds 1 \
      --no-charts
fi
if [ "$runtime_pass" = 1 ]; then
  echo "==> runtime pass: 10,000 pods on twelve simulated nodes; reflectors and watches"
  scripts/with-testenv.sh --feature-gates=APIResponseCompression=false --nodes 12 -- \
    python3 benchmarks/suite/runtime.py --build-dir build/bench --out benchmarks/runtime
fi
