#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# Runs a libFuzzer target: installs what is missing, builds the `fuzz` preset (clang-15,
# ASan+UBSan, build/fuzz) and fuzzes for N seconds (default 300). Targets:
#   decode      the model decoder (tests/fuzz/fuzz_decode.cpp), seeded with the API fixtures
#   kubeconfig  the kubeconfig reader (tests/fuzz/fuzz_kubeconfig.cpp), seeded with
#               tests/fuzz/kubeconfig-corpus/
#   protobuf    the protobuf reader, writer, envelope and watch framing
#               (tests/fuzz/fuzz_protobuf.cpp), seeded with tests/fuzz/protobuf-corpus/
# Exits non-zero on any finding (crash, sanitizer report, leak, broken invariant, timeout,
# out-of-memory); libFuzzer leaves the input in build/fuzz/run-<target>/findings/. Once the
# bug is fixed, add that input to the target's regression corpus (tests/fuzz/corpus/,
# tests/fuzz/kubeconfig-corpus/ or tests/fuzz/protobuf-corpus/).
#
#   scripts/fuzz.sh [--target decode|kubeconfig|protobuf] [seconds]
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
cd "$root"

target=decode
if [ "${1:-}" = --target ]; then
  target=${2:?--target needs decode, kubeconfig or protobuf}
  shift 2
fi
seconds=${1:-300}
case "$target" in
  decode | kubeconfig | protobuf) ;;
  *) echo "$0: unknown target '$target' (decode, kubeconfig or protobuf)" >&2; exit 2 ;;
esac
case "$seconds" in
  '' | *[!0-9]*) echo "usage: $0 [--target decode|kubeconfig|protobuf] [seconds]" >&2; exit 2 ;;
esac

# As in scripts/test.sh: let ccache hit across clones.
export CCACHE_BASEDIR="$root" CCACHE_NOHASHDIR=true

scripts/install-deps.sh
cmake --preset fuzz >/dev/null
cmake --build --preset fuzz -j "$(nproc)"

run=build/fuzz/run-$target
corpus=$run/corpus   # what the fuzzer learns; kept between runs, never committed
seeds=$run/seeds
mkdir -p "$corpus" "$seeds" "$run/findings"
rm -f "$seeds"/*
if [ "$target" = decode ]; then
  max_len=65536
  # Seeds: the API fixtures up to max_len (the 2 MB pod list would only be cut short).
  for f in tests/fixtures/v1.35.4/*.json; do
    [ "$(stat -c %s "$f")" -le "$max_len" ] && cp "$f" "$seeds/"
  done
  regression=tests/fuzz/corpus
  dict=tests/fuzz/json.dict
elif [ "$target" = kubeconfig ]; then
  max_len=16384
  regression=tests/fuzz/kubeconfig-corpus
  dict=tests/fuzz/kubeconfig.dict
else
  max_len=16384
  regression=tests/fuzz/protobuf-corpus
  dict=tests/fuzz/protobuf.dict
fi

echo "fuzz $target: ${seconds}s, log in $run/fuzz.log" >&2
status=0
ASAN_OPTIONS=detect_leaks=1:abort_on_error=1 UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1 \
  "build/fuzz/tests/fuzz/kubex_fuzz_$target" \
  -max_total_time="$seconds" -max_len="$max_len" -timeout=10 -rss_limit_mb=4096 \
  -dict="$dict" -artifact_prefix="$run/findings/" -print_final_stats=1 \
  "$corpus" "$seeds" "$regression" >"$run/fuzz.log" 2>&1 || status=$?
grep -E '^#[0-9]+[[:space:]]+(DONE|INITED)|^stat::' "$run/fuzz.log" >&2 || true
if [ "$status" != 0 ]; then
  tail -n 60 "$run/fuzz.log" >&2
  echo "fuzz $target: FAILED (exit $status); inputs in $run/findings/" >&2
  exit 1
fi
echo "fuzz $target: clean, corpus $(find "$corpus" -type f | wc -l) inputs" >&2
