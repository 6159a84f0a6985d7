#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# Runs a gtest command and passes only if it exits 0 AND reports exactly N passed tests:
#   expect_gtest_passed.sh N COMMAND...
# For ctest entries that must run a known number of tests (a filter that matches none passes
# with status 0), without PASS_REGULAR_EXPRESSION, which makes ctest ignore the exit status.
set -uo pipefail
want=${1:?usage: $0 N COMMAND...}
shift
[ $# -gt 0 ] || { echo "usage: $0 N COMMAND..." >&2; exit 2; }
out=$(mktemp)
trap 'rm -f "$out"' EXIT
"$@" 2>&1 | tee "$out"
rc=${PIPESTATUS[0]}
if [ "$rc" -ne 0 ]; then
  echo "expect_gtest_passed: the command exited with status $rc" >&2
  exit 1
fi
unit=tests
[ "$want" -eq 1 ] && unit=test
if ! grep -q "^\[  PASSED  \] $want $unit\.\$" "$out"; then
  echo "expect_gtest_passed: the command did not report '[  PASSED  ] $want $unit.'" >&2
  exit 1
fi
