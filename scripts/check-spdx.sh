#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# Fails, naming each file, when a source file of the repository (C++, Python, shell, Go, Rust,
# JavaScript, CMake, build manifests) lacks an SPDX-License-Identifier line among its first five
# lines. Generated models carry theirs through tools/codegen, so they are checked too; data
# (specs, fixtures, fuzz corpora, benchmark results) is not.
#   scripts/check-spdx.sh [<repository root>]
set -euo pipefail
root=${1:-$(cd "$(dirname "$0")/.." && pwd)}
cd "$root"

mapfile -t files < <(git ls-files --cached --others --exclude-standard -- \
  '*.cpp' '*.hpp' '*.h' '*.c' '*.cc' '*.py' '*.sh' '*.go' '*.rs' '*.js' '*.mjs' '*.cmake' '*.in' \
  'CMakeLists.txt' '*/CMakeLists.txt' 'Cargo.toml' '*/Cargo.toml' '*requirements*.txt' \
  '*conanfile.py' .ci/run tools/codegen/generate |
  grep -vE '^(build|specs|tests/fixtures)/|/(build|node_modules|target)/' | sort -u)

missing=()
for f in "${files[@]}"; do
  [ -f "$f" ] || continue  # deleted in the work tree, not yet in the index
  head -n 5 "$f" | grep -q 'SPDX-License-Identifier: ' || missing+=("$f")
done
if ((${#missing[@]})); then
  printf 'missing SPDX-License-Identifier line: %s\n' "${missing[@]}" >&2
  echo "error: ${#missing[@]} of ${#files[@]} source files have no SPDX line in their first" \
    "five lines (add '// SPDX-License-Identifier: Apache-2.0' or its '#' form)" >&2
  exit 1
fi
echo "SPDX lines: all ${#files[@]} source files carry one"
