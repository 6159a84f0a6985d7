#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# The version check must pass when CMakeLists.txt and the top released CHANGELOG entry agree, and
# fail, naming both versions, when they do not or when the entry is missing.
#   tests/scripts/check_version_test.sh <scripts/check-version.sh>
set -euo pipefail
check=$1
dir=$(mktemp -d)
trap 'rm -rf "$dir"' EXIT
write() {
  printf 'cmake_minimum_required(VERSION 3.25)\nproject(kubex VERSION %s LANGUAGES CXX\n)\n' "$1" \
    >"$dir/CMakeLists.txt"
  printf '# Changelog\n\n## Unreleased\n\n- x\n\n%s\n\n- y\n\n## [0.0.9] - 2026-01-01\n' "$2" \
    >"$dir/CHANGELOG.md"
}
expect_fail() {
  local want=$1 out
  if out=$(bash "$check" "$dir" 2>&1); then
    echo "FAIL: passed, expected '$want':"$'\n'"$out" >&2
    exit 1
  fi
  grep -qF "$want" <<<"$out" || { echo "FAIL: expected '$want' in:"$'\n'"$out" >&2; exit 1; }
}
write 0.2.0 '## [0.2.0] - 2026-12-07'
bash "$check" "$dir" >/dev/null
write 0.2.1 '## [0.2.0] - 2026-12-07'
expect_fail 'CMakeLists.txt says kubex 0.2.1, the top released entry of CHANGELOG.md says 0.2.0'
write 0.2.0 '## [0.2.0]'
expect_fail "the top release heading is '## [0.2.0]'"
write 0.2.0 '## 0.2.0 - 2026-12-07'
expect_fail 'says 0.0.9'
echo "check-version: ok"
