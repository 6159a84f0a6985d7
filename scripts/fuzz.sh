#!/usr/bin/env bash
# Fuzzes the model decoder (tests/fuzz/fuzz_decode.cpp) with libFuzzer: installs what is
# missing, builds the `fuzz` preset (clang-15, ASan+UBSan, build/fuzz) and fuzzes for N
# seconds (default 300). Exits non-zero on any finding (crash, sanitizer report, leak, round-trip
# failure, timeout, out-of-memory); libFuzzer leaves the input in build/fuzz/run/findings/.
# Once the bug is fixed, add that input to tests/fuzz/corpus/ as a regression test.
#
#   scripts/fuzz.sh [seconds]
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
cd "$root"

seconds=${1:-300}
case "$seconds" in
  '' | *[!0-9]*) echo "usage: $0 [seconds]" >&2; exit 2 ;;
esac

# As in scripts/test.sh: let ccache hit across clones.
export CCACHE_BASEDIR="$root" CCACHE_NOHASHDIR=true

scripts/install-deps.sh
cmake --preset fuzz >/dev/null
cmake --build --preset fuzz -j "$(nproc)"

run=build/fuzz/run
corpus=$run/corpus   # what the fuzzer learns; kept between runs, never committed
seeds=$run/seeds
mkdir -p "$corpus" "$seeds" "$run/findings"
# Seeds: the API fixtures up to max_len (the 2 MB pod list would only be cut short).
max_len=65536
rm -f "$seeds"/*
for f in tests/fixtures/v1.35.4/*.json; do
  [ "$(stat -c %s "$f")" -le "$max_len" ] && cp "$f" "$seeds/"
done

echo "fuzz: ${seconds}s, log in $run/fuzz.log" >&2
status=0
ASAN_OPTIONS=detect_leaks=1:abort_on_error=1 UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1 \
  build/fuzz/tests/fuzz/kubex_fuzz_decode \
  -max_total_time="$seconds" -max_len="$max_len" -timeout=10 -rss_limit_mb=4096 \
  -dict=tests/fuzz/json.dict -artifact_prefix="$run/findings/" -print_final_stats=1 \
  "$corpus" "$seeds" tests/fuzz/corpus >"$run/fuzz.log" 2>&1 || status=$?
grep -E '^#[0-9]+[[:space:]]+(DONE|INITED)|^stat::' "$run/fuzz.log" >&2 || true
if [ "$status" != 0 ]; then
  tail -n 60 "$run/fuzz.log" >&2
  echo "fuzz: FAILED (exit $status); inputs in $run/findings/" >&2
  exit 1
fi
echo "fuzz: clean, corpus $(find "$corpus" -type f | wc -l) inputs" >&2
