#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# Builds the `bench` preset (Release) and runs the typed models codec benchmarks
# (benchmarks/models/codec_bench.cpp), then writes the raw Google Benchmark JSON and a markdown
# summary (machine, versions, command, medians, ratios) to the output directory.
#
#   benchmarks/run-models.sh [--commit REV] [--out DIR] [--no-haswell] [-- BENCHMARK_ARGS...]
#
#   --commit REV   benchmark the committed tree REV (exported with `git archive` to
#                  build/bench-export/<sha>, built there) instead of the working tree, so the
#                  numbers belong to exactly one commit while others edit the working tree
#   --out DIR      where to write codec.json, codec-default-malloc.json, codec-haswell.json and
#                  summary.md
#                  (default build/bench-results/models-<UTC time>; never committed)
#   --no-haswell   skip the -march=haswell experiment (it runs only on CPUs with AVX2 and BMI2)
#   --nice N       run the benchmark programs in a session of their own whose scheduler
#                  autogroup, and the programs, have nice N (N < 0 needs root). With autogroups
#                  (Linux's default) nice alone only ranks processes within a session, so on a
#                  shared machine that never goes idle a benchmark gets 1/k of a CPU among k
#                  busy sessions however it is niced; with --nice -10 it keeps its CPU (the
#                  other CPU stays busy: shared cache and memory contention remain)
#   --wait-idle S  before running, wait up to S seconds for 10 s in which the CPUs are at least
#                  95 % idle (a shared machine with compiles running gives meaningless times);
#                  the summary says whether the machine was idle
#
# Every benchmark runs 5 times (--benchmark_repetitions=5 --benchmark_report_aggregates_only,
# repetitions interleaved at random) and the summary reports medians; ratios are taken between
# rows of the same run. Performance
# numbers need a quiet machine: the summary records the load average before and after.
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)

commit=""
out=""
haswell=1
wait_idle=0
nice_n=0
bench_args=()
while [ $# -gt 0 ]; do
  case "$1" in
    --commit) commit=${2:?--commit needs a revision}; shift 2 ;;
    --out) out=${2:?--out needs a directory}; shift 2 ;;
    --no-haswell) haswell=0; shift ;;
    --wait-idle) wait_idle=${2:?--wait-idle needs seconds}; shift 2 ;;
    --nice) nice_n=${2:?--nice needs a number}; shift 2 ;;
    --) shift; bench_args=("$@"); break ;;
    *) echo "usage: $0 [--commit REV] [--out DIR] [--no-haswell] [--nice N] [--wait-idle S] [-- BENCHMARK_ARGS...]" >&2; exit 2 ;;
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

# Percentage of CPU time spent idle over the next 10 seconds, from /proc/stat.
idle_pct() {
  local a b
  read -r -a a < <(head -1 /proc/stat)
  sleep 10
  read -r -a b < <(head -1 /proc/stat)
  local total=0 i
  for i in 1 2 3 4 5 6 7 8; do total=$((total + b[i] - a[i])); done
  echo $(( (b[4] - a[4] + b[5] - a[5]) * 100 / (total > 0 ? total : 1) ))
}
idle_note="not checked"
if [ "$wait_idle" -gt 0 ]; then
  deadline=$(( $(date +%s) + wait_idle ))
  while :; do
    idle=$(idle_pct)
    if [ "$idle" -ge 95 ]; then idle_note="CPUs ${idle} % idle in the 10 s before the run"; break; fi
    if [ "$(date +%s)" -ge "$deadline" ]; then
      if [ "$nice_n" != 0 ]; then
        idle_note="**machine busy** (${idle} % idle when the wait ran out): the benchmarks ran at autogroup nice $nice_n and kept their CPU, but other work shared the caches and memory"
      else
        idle_note="**machine busy**: only ${idle} % idle when the wait ran out; times are unreliable"
      fi
      break
    fi
    echo "==> waiting for an idle machine (${idle} % idle)" >&2
  done
fi

# Repetitions are interleaved in random order, so load that changes during the run spreads
# over all rows instead of skewing the ratios between them.
args=(--benchmark_repetitions=5 --benchmark_report_aggregates_only=true
  --benchmark_enable_random_interleaving=true --benchmark_out_format=json "${bench_args[@]}")
load_before=$(cut -d' ' -f1-3 /proc/loadavg)
run=()
if [ "$nice_n" != 0 ]; then
  # shellcheck disable=SC2016
  run=(setsid -w bash -c 'echo "$0" >/proc/self/autogroup 2>/dev/null || true; exec nice -n "$0" "$@"' "$nice_n")
fi
echo "==> kubex_codec_bench" >&2
"${run[@]}" "$bin/kubex_codec_bench" "${args[@]}" --benchmark_out="$out/codec.json"
files=("$out/codec.json")
echo "==> kubex_codec_bench --malloc=default (glibc trims and mmaps: cold-heap costs)" >&2
"${run[@]}" "$bin/kubex_codec_bench" --malloc=default "${args[@]}" --benchmark_out="$out/codec-default-malloc.json"
files+=("$out/codec-default-malloc.json")
if [ "$haswell" = 1 ] && [ -x "$bin/kubex_codec_bench_haswell" ] &&
  grep -qw avx2 /proc/cpuinfo && grep -qw bmi2 /proc/cpuinfo; then
  echo "==> kubex_codec_bench_haswell (experiment: json.cpp built with -march=haswell)" >&2
  "${run[@]}" "$bin/kubex_codec_bench_haswell" "${args[@]}" --benchmark_out="$out/codec-haswell.json"
  files+=("$out/codec-haswell.json")
fi
load_after=$(cut -d' ' -f1-3 /proc/loadavg)

command="benchmarks/run-models.sh"
[ -z "$commit" ] || command+=" --commit $commit"
[ "$haswell" = 1 ] || command+=" --no-haswell"
[ "$nice_n" = 0 ] || command+=" --nice $nice_n"
[ "$wait_idle" = 0 ] || command+=" --wait-idle $wait_idle"
[ ${#bench_args[@]} -eq 0 ] || command+=" -- ${bench_args[*]}"
python3 "$root/benchmarks/summarize-models.py" \
  --revision "$revision" --command "$command" \
  --benchmark-args "${args[*]}" \
  --load "$load_before" "$load_after" --idle "$idle_note" "${files[@]}" >"$out/summary.md"
echo "==> results in $out (summary.md, ${files[*]##*/})" >&2
cat "$out/summary.md"
