#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# Formats (or with --check, verifies) all C++ sources with clang-format-15 and Go with gofmt.
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
cd "$root"
# Generated code (models/v1_*, the generator's golden files) is left as the generator writes it.
mapfile -t cxx < <(git ls-files --cached --others --exclude-standard -- '*.cpp' '*.hpp' '*.h' '*.cc' |
  grep -vE '^(models/v1_[0-9]+/|tools/codegen/tests/golden/)' | while read -r f; do [ -f "$f" ] && echo "$f"; done)
if [ "${1:-}" = "--check" ]; then
  bad=0
  if ((${#cxx[@]})); then clang-format-15 --dry-run --Werror "${cxx[@]}" || bad=1; fi
  unformatted=$(gofmt -l tools/testenv)
  if [ -n "$unformatted" ]; then echo "gofmt needed: $unformatted" >&2; bad=1; fi
  [ "$bad" = 0 ] || { echo "format: run scripts/format.sh" >&2; exit 1; }
else
  if ((${#cxx[@]})); then clang-format-15 -i "${cxx[@]}"; fi
  gofmt -w tools/testenv
fi
