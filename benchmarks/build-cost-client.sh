#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# Measures what one translation unit of a kubex user costs to compile: the program in
# benchmarks/build-cost/ (BlockingApi<Pod> and BlockingApi<ConfigMap>, ~220 lines), built
# against the installed package as a user's CMake project would (g++ -std=c++20, no
# optimisation: CMake's default build type; and -O2), median of N runs, with wall time, CPU
# time and peak memory. Prints a markdown table; benchmarks/results/client-build.md has the
# figures and what moved them.
#
#   benchmarks/build-cost-client.sh [--build-dir DIR | --prefix PREFIX] [--runs N]
#                                    [--flags "-O0 -O2"]
#
# DIR (default build/ci) is a configured and built kubex tree; it is installed into a scratch
# prefix first (--prefix: an installed one, e.g. an older commit's, instead). The example
# operator's translation unit (examples/website_operator/main.cpp) is measured too, with the
# header kubex_crd_models wrote for it in DIR (or PREFIX/website-include, copied there by hand
# for an older build). Needs an otherwise idle machine for the wall times to mean anything: the
# report records the load average.
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
dir="$root/build/ci"
runs=3
prefix=""
flag_sets=("-O0" "-O2")
while [ $# -gt 0 ]; do
  case "$1" in
    --build-dir) dir=${2:?}; shift 2 ;;
    --prefix) prefix=${2:?}; shift 2 ;;
    --runs) runs=${2:?}; shift 2 ;;
    --flags) read -r -a flag_sets <<<"${2:?}"; shift 2 ;;
    *) echo "usage: $0 [--build-dir DIR | --prefix PREFIX] [--runs N] [--flags \"-O0 -O2\"]" >&2
       exit 2 ;;
  esac
done
tmp=$(mktemp -d "${TMPDIR:-/tmp}/kubex-client-build.XXXXXX")
trap 'rm -rf "$tmp"' EXIT
website_include="$dir/examples/kubex_example_website_models_include"
if [ -z "$prefix" ]; then
  prefix="$tmp/prefix"
  cmake --install "$dir" --prefix "$prefix" >/dev/null
else
  website_include="$prefix/website-include"
fi
export CCACHE_DISABLE=1
sources=("$root"/benchmarks/build-cost/*.cpp)
if [ -d "$website_include" ]; then
  sources+=("$root/examples/website_operator/main.cpp")
fi

echo "| program | flags | wall (median of $runs) | user CPU | peak RSS | preprocessed lines |"
echo "|---|---|---:|---:|---:|---:|"
for src in "${sources[@]}"; do
  name=$(basename "$src")
  [ "$name" = main.cpp ] && name=website_operator/main.cpp
  includes=(-I "$prefix/include" -I "$website_include")
  lines=$(g++ -std=c++20 "${includes[@]}" -E -P "$src" | wc -l)
  for flags in "${flag_sets[@]}"; do
    for i in $(seq "$runs"); do
      # shellcheck disable=SC2086
      /usr/bin/time -f '%e %U %M' -o "$tmp/t$i" \
        g++ -std=c++20 $flags "${includes[@]}" -c "$src" -o "$tmp/out.o"
    done
    # The run with the median wall time, and its CPU time and memory.
    read -r wall user rss < <(cat "$tmp"/t* | sort -n | sed -n "$(((runs + 1) / 2))p")
    rm -f "$tmp"/t*
    printf '| %s | %s | %.1f s | %.1f s | %d MB | %d |\n' "$name" "$flags" "$wall" "$user" \
      $((rss / 1024)) "$lines"
  done
done
echo
if [ "$prefix" = "$tmp/prefix" ]; then
  src=$(sed -n 's/^CMAKE_HOME_DIRECTORY:INTERNAL=//p' "$dir/CMakeCache.txt")
  what="kubex $(git -C "$src" rev-parse --short HEAD)$(git -C "$src" diff --quiet || echo +) ($dir)"
else
  what="the installed prefix $prefix"
fi
echo "headers: $what; load average $(cut -d' ' -f1-3 /proc/loadavg); $(g++ --version | head -1)"
