#!/usr/bin/env bash
# Builds the `bench` preset (Release) and runs the typed models codec benchmarks
# (benchmarks/models/codec_bench.cpp), then writes the raw Google Benchmark JSON and a markdown
# summary (machine, versions, command, medians, ratios) to the output directory.
#
#   benchmarks/run-models.sh [--commit REV] [--out DIR] [--no-haswell] [-- BENCHMARK_ARGS...]
#
#   --commit REV   benchmark the committed tree REV (exported with `git archive` to
#                  build/bench-export/<sha>, built there) instead of the working tree, so the
#                  numbers belong to exactly one commit while others edit the working tree
#   --out DIR      where to write codec.json, codec-haswell.json and summary.md
#                  (default build/bench-results/models-<UTC time>; never committed)
#   --no-haswell   skip the -march=haswell experiment (it runs only on CPUs with AVX2 and BMI2)
#
# Every benchmark runs 5 times (--benchmark_repetitions=5 --benchmark_report_aggregates_only)
# and the summary reports medians; ratios are taken between rows of the same run. Performance
# numbers need a quiet machine: the summary records the load average before and after.
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)

commit=""
out=""
haswell=1
bench_args=()
while [ $# -gt 0 ]; do
  case "$1" in
    --commit) commit=${2:?--commit needs a revision}; shift 2 ;;
    --out) out=${2:?--out needs a directory}; shift 2 ;;
    --no-haswell) haswell=0; shift ;;
    --) shift; bench_args=("$@"); break ;;
    *) echo "usage: $0 [--commit REV] [--out DIR] [--no-haswell] [-- BENCHMARK_ARGS...]" >&2; exit 2 ;;
  esac
done

src="$root"
if [ -n "$commit" ]; then
  sha=$(git -C "$root" rev-parse --verify "$commit^{commit}")
  src="$root/build/bench-export/$sha"
  if [ ! -f "$src/CMakeLists.txt" ]; then
    mkdir -p "$src"
    git -C "$root" archive "$sha" | tar -x -C "$src"
  fi
  revision="$sha (exported with git archive; working tree not used)"
else
  sha=$(git -C "$root" rev-parse HEAD)
  dirty=$(git -C "$root" status --porcelain -- core models benchmarks tests/fixtures CMakeLists.txt | wc -l)
  if [ "$dirty" -gt 0 ]; then
    revision="$sha + uncommitted changes in $dirty paths under core/ models/ benchmarks/ tests/fixtures/"
  else
    revision="$sha (clean in core/ models/ benchmarks/ tests/fixtures/)"
  fi
fi
[ -n "$out" ] || out="$root/build/bench-results/models-$(date -u +%Y%m%dT%H%M%SZ)"
mkdir -p "$out"
out=$(cd "$out" && pwd)

echo "==> build (preset bench, $src)" >&2
export CCACHE_BASEDIR="$src" CCACHE_NOHASHDIR=true
(
  cd "$src"
  nice cmake --preset bench >/dev/null
  nice cmake --build --preset bench -j 2
)
bin="$src/build/bench/benchmarks"

args=(--benchmark_repetitions=5 --benchmark_report_aggregates_only=true
  --benchmark_out_format=json "${bench_args[@]}")
load_before=$(cut -d' ' -f1-3 /proc/loadavg)
echo "==> kubex_codec_bench" >&2
"$bin/kubex_codec_bench" "${args[@]}" --benchmark_out="$out/codec.json"
files=("$out/codec.json")
if [ "$haswell" = 1 ] && [ -x "$bin/kubex_codec_bench_haswell" ] &&
  grep -qw avx2 /proc/cpuinfo && grep -qw bmi2 /proc/cpuinfo; then
  echo "==> kubex_codec_bench_haswell (experiment: json.cpp built with -march=haswell)" >&2
  "$bin/kubex_codec_bench_haswell" "${args[@]}" --benchmark_out="$out/codec-haswell.json"
  files+=("$out/codec-haswell.json")
fi
load_after=$(cut -d' ' -f1-3 /proc/loadavg)

command="benchmarks/run-models.sh"
[ -z "$commit" ] || command+=" --commit $commit"
[ "$haswell" = 1 ] || command+=" --no-haswell"
[ ${#bench_args[@]} -eq 0 ] || command+=" -- ${bench_args[*]}"
python3 "$root/benchmarks/summarize-models.py" \
  --revision "$revision" --command "$command" \
  --benchmark-args "${args[*]}" \
  --load "$load_before" "$load_after" "${files[@]}" >"$out/summary.md"
echo "==> results in $out (summary.md, ${files[*]##*/})" >&2
cat "$out/summary.md"
