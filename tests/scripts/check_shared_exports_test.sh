#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# check_shared_exports.sh must refuse a library that exports a symbol outside namespace kubex or
# has the wrong soname, and name both.
#   tests/scripts/check_shared_exports_test.sh <check_shared_exports.sh> <leaky .so>
set -euo pipefail
check=$1
leaky=$2
if out=$(bash "$check" 0.1 "$leaky" 2>&1); then
  echo "FAIL: passed a library that leaks:"$'\n'"$out" >&2
  exit 1
fi
grep -q 'third_party::leaked_function()' <<<"$out" ||
  { echo "FAIL: the leaked symbol is not named:"$'\n'"$out" >&2; exit 1; }
grep -q "soname 'libkubex_leaky_fixture.so.9', expected 'libkubex_leaky_fixture.so.0.1'" <<<"$out" ||
  { echo "FAIL: the wrong soname is not named:"$'\n'"$out" >&2; exit 1; }
if grep -q 'fixture_answer' <<<"$out"; then
  echo "FAIL: named kubex's own symbol as a leak:"$'\n'"$out" >&2
  exit 1
fi
echo "check-shared-exports: catches a leak and a wrong soname"
