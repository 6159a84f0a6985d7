#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# Fails when the version in CMakeLists.txt (project(kubex VERSION x.y.z)) differs from the top
# released entry of CHANGELOG.md (the first "## [x.y.z] - YYYY-MM-DD" heading below
# "## Unreleased"): a release bumps both in one commit.
#   scripts/check-version.sh [<repository root>]
set -euo pipefail
root=${1:-$(cd "$(dirname "$0")/.." && pwd)}

cmake_version=$(sed -nE 's/^project\(kubex VERSION ([0-9]+\.[0-9]+\.[0-9]+)([^0-9].*)?$/\1/p' \
  "$root/CMakeLists.txt" | head -n 1)
if [ -z "$cmake_version" ]; then
  echo "error: no 'project(kubex VERSION x.y.z' line in $root/CMakeLists.txt" >&2
  exit 1
fi
if ! grep -qx '## Unreleased' "$root/CHANGELOG.md"; then
  echo "error: CHANGELOG.md has no '## Unreleased' section for the changes after a release" >&2
  exit 1
fi
released=$(grep -E '^## \[' "$root/CHANGELOG.md" | head -n 1 || true)
changelog_version=$(sed -nE 's/^## \[([0-9]+\.[0-9]+\.[0-9]+)\] - [0-9]{4}-[0-9]{2}-[0-9]{2}$/\1/p' \
  <<<"$released")
if [ -z "$changelog_version" ]; then
  echo "error: CHANGELOG.md: the top release heading is '${released:-missing}', not" \
    "'## [x.y.z] - YYYY-MM-DD'" >&2
  exit 1
fi
if [ "$cmake_version" != "$changelog_version" ]; then
  echo "error: CMakeLists.txt says kubex $cmake_version, the top released entry of CHANGELOG.md" \
    "says $changelog_version: bump both in the release commit" >&2
  exit 1
fi
echo "version: $cmake_version in CMakeLists.txt and CHANGELOG.md"
