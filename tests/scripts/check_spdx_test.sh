#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# The SPDX check must fail on a source file without the line and name it, pass once it has one,
# and leave data files alone.
#   tests/scripts/check_spdx_test.sh <scripts/check-spdx.sh>
set -euo pipefail
check=$1
repo=$(mktemp -d)
trap 'rm -rf "$repo"' EXIT
git -C "$repo" init -q
mkdir -p "$repo/core" "$repo/tests/fixtures"
printf '#pragma once\n' >"$repo/core/a.hpp"
printf '#!/usr/bin/env bash\n# SPDX-License-Identifier: Apache-2.0\n' >"$repo/run.sh"
printf '{}\n' >"$repo/tests/fixtures/pod.json"
printf 'no line\n' >"$repo/tests/fixtures/x.cpp"

if out=$(bash "$check" "$repo" 2>&1); then
  echo "FAIL: passed with core/a.hpp lacking its SPDX line:"$'\n'"$out" >&2
  exit 1
fi
grep -q 'missing SPDX-License-Identifier line: core/a.hpp' <<<"$out" ||
  { echo "FAIL: core/a.hpp not named:"$'\n'"$out" >&2; exit 1; }
if grep -q 'run.sh\|fixtures' <<<"$out"; then
  echo "FAIL: named a file that has its line, or a fixture:"$'\n'"$out" >&2
  exit 1
fi
printf '// SPDX-License-Identifier: Apache-2.0\n#pragma once\n' >"$repo/core/a.hpp"
out=$(bash "$check" "$repo" 2>&1) || { echo "FAIL: refused a tree with every line:"$'\n'"$out" >&2; exit 1; }
grep -q 'all 2 source files' <<<"$out" || { echo "FAIL: unexpected count:"$'\n'"$out" >&2; exit 1; }
echo "check-spdx: ok"
