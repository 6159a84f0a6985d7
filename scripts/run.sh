#!/usr/bin/env bash
# The main job (README): the benchmark report. Installs what is missing, builds the suite's
# programs in Release (build/bench), starts a real control plane on loopback with server-side
# response compression off, seeds 500 pods and a log-emitter, runs every adapter and scenario
# in fresh processes next to the physical limits L1/L2, prints progress and the headline
# table, and writes benchmarks/report.md, report.csv and charts/.
#
#   scripts/run.sh [run.py options]      e.g. --full, --rounds 3, --adapters kubex,L1,
#                                        --scenarios list_large, --out DIR
# See benchmarks/suite/run.py --help.
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
cd "$root"

export CCACHE_BASEDIR="$root" CCACHE_NOHASHDIR=true  # cache hits across clones
echo "==> dependencies"
scripts/install-deps.sh --bench
echo "==> build (Release, build/bench)"
cmake --preset bench >/dev/null
cmake --build build/bench -j "$(nproc)" --target kubex_bench_suite
echo "==> control plane (compression off), seeding, benchmark"
scripts/with-testenv.sh --feature-gates=APIResponseCompression=false -- \
  python3 benchmarks/suite/run.py --build-dir build/bench --out benchmarks \
    --results build/bench/results.jsonl "$@"
