#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# Checks that every generated model header of every Kubernetes version compiles with clang
# (syntax only, about 7 s per version). GCC accepts more than clang here (a vector member of a
# type defined later in the header), so the GCC builds alone would not notice a regression.
#
#   scripts/check-models-clang.sh [CLANG]     CLANG defaults to clang++-15
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
clang=${1:-clang++-15}
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

check() {
  local dir=$1 tu
  tu="$tmp/$(basename "$dir").cpp"
  (cd "$dir/include" && find kubex -name '*.hpp' | sort | sed 's/.*/#include <&>/') >"$tu"
  if ! "$clang" -std=c++20 -fsyntax-only -I"$root/core/include" -I"$dir/include" "$tu" \
      2>"$tu.err"; then
    echo "clang rejects the models in $dir:" >&2
    grep -m 20 'error' "$tu.err" >&2
    return 1
  fi
}
export -f check
export root clang tmp
find "$root/models" -mindepth 1 -maxdepth 1 -type d -name 'v1_*' | sort |
  xargs -P "$(nproc)" -I{} bash -c 'check {}'
echo "models compile with $clang: $(find "$root/models" -mindepth 1 -maxdepth 1 -type d -name 'v1_*' | wc -l) versions"
