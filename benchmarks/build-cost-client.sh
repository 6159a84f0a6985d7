#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# Measures what one translation unit of a kubex user costs to compile: the program in
# benchmarks/build-cost/ (BlockingApi<Pod> and BlockingApi<ConfigMap>, ~220 lines), built
# against the installed package as a user's CMake project would (g++ -std=c++20, no
# optimisation: CMake's default build type; and -O2), median of N runs, with wall time, CPU
# time and peak memory. Prints a markdown table; benchmarks/results/client-build.md has the
# figures and what moved them.
#
#   benchmarks/build-cost-client.sh [--build-dir DIR] [--runs N] [--flags "-O0 -O2"]
#
# DIR (default build/ci) is a configured and built kubex tree; it is installed into a scratch
# prefix first. Needs an otherwise idle machine for the wall times to mean anything: the
# report records the load average.
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
dir="$root/build/ci"
runs=3
flag_sets=("-O0" "-O2")
while [ $# -gt 0 ]; do
  case "$1" in
    --build-dir) dir=${2:?}; shift 2 ;;
    --runs) runs=${2:?}; shift 2 ;;
    --flags) read -r -a flag_sets <<<"${2:?}"; shift 2 ;;
    *) echo "usage: $0 [--build-dir DIR] [--runs N] [--flags \"-O0 -O2\"]" >&2; exit 2 ;;
  esac
done
tmp=$(mktemp -d "${TMPDIR:-/tmp}/kubex-client-build.XXXXXX")
trap 'rm -rf "$tmp"' EXIT
cmake --install "$dir" --prefix "$tmp/prefix" >/dev/null
export CCACHE_DISABLE=1

echo "| program | flags | wall (median of $runs) | user CPU | peak RSS | preprocessed lines |"
echo "|---|---|---:|---:|---:|---:|"
for src in "$root"/benchmarks/build-cost/*.cpp; do
  name=$(basename "$src")
  lines=$(g++ -std=c++20 -I "$tmp/prefix/include" -E -P "$src" | wc -l)
  for flags in "${flag_sets[@]}"; do
    for i in $(seq "$runs"); do
      # shellcheck disable=SC2086
      /usr/bin/time -f '%e %U %M' -o "$tmp/t$i" \
        g++ -std=c++20 $flags -I "$tmp/prefix/include" -c "$src" -o "$tmp/out.o"
    done
    # The run with the median wall time, and its CPU time and memory.
    read -r wall user rss < <(cat "$tmp"/t* | sort -n | sed -n "$(((runs + 1) / 2))p")
    rm -f "$tmp"/t*
    printf '| %s | %s | %.1f s | %.1f s | %d MB | %d |\n' "$name" "$flags" "$wall" "$user" \
      $((rss / 1024)) "$lines"
  done
done
src=$(sed -n 's/^CMAKE_HOME_DIRECTORY:INTERNAL=//p' "$dir/CMakeCache.txt")
echo
echo "headers: kubex $(git -C "$src" rev-parse --short HEAD)$(git -C "$src" diff --quiet || echo +) ($dir);" \
  "load average $(cut -d' ' -f1-3 /proc/loadavg); $(g++ --version | head -1)"
