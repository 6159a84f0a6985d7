#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# Consumer check 6 (issue 39): `conan create` of the recipe (conanfile.py) with a profile the
# project ships, which builds the libraries, packages them and builds and runs test_package.
#
#   scripts/check-conan.sh                          test_package prints the version
#   scripts/with-testenv.sh scripts/check-conan.sh  and lists namespaces on testenv's apiserver
#   scripts/check-conan.sh -o 'kubex/*:shared=True' arguments after it go to `conan create`
#
# Environment: KUBEX_CONAN_PROFILE (default conan/profiles/ci: the ci preset's flags, so the
# compiles hit what the ci build put in ccache; conan/profiles/debian12 is the plain one),
# JOBS (default 2), KUBEX_TESTENV_KUBECONFIG (set by with-testenv.sh).
#
# Conan comes from PyPI at the pinned version (scripts/install-conan.sh); its home is fresh at
# build/conan/home with every remote removed, so nothing is fetched and nothing outside build/
# and the kubex cache is touched. The dependencies are Debian's ([platform_requires]).
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
cd "$root"

profile="${KUBEX_CONAN_PROFILE:-conan/profiles/ci}"
jobs="${JOBS:-2}"
[ -f "$profile" ] || { echo "check-conan: no profile $profile" >&2; exit 2; }
command -v ccache >/dev/null || echo "check-conan: ccache not found: a cold build (~15 min)" >&2

conan=$(scripts/install-conan.sh)

work="$root/build/conan"
export CONAN_HOME="$work/home"
rm -rf "$work"
mkdir -p "$CONAN_HOME"
# No remote: every dependency is a platform one, and the recipe comes from this tree.
"$conan" remote list --format=json >/dev/null  # makes the default remotes.json
"$conan" remote remove "*" >/dev/null
if [ "$("$conan" remote list --format=json)" != "[]" ]; then
  echo "check-conan: could not remove Conan's remotes in $CONAN_HOME" >&2
  exit 1
fi

# The conan build directory lies under $root as build/ci does, so with the same relative
# paths and flags its compile commands are the ones ccache has seen (CCACHE_BASEDIR).
export CCACHE_BASEDIR="$root" CCACHE_NOHASHDIR=true
export CCACHE_STATSLOG="$work/ccache-stats.log"

if [ -n "${KUBEX_TESTENV_KUBECONFIG:-}" ]; then
  [ -r "$KUBEX_TESTENV_KUBECONFIG" ] \
    || { echo "check-conan: KUBEX_TESTENV_KUBECONFIG=$KUBEX_TESTENV_KUBECONFIG is not readable" >&2; exit 1; }
  echo "check-conan: test_package runs against $KUBEX_TESTENV_KUBECONFIG"
fi

# test_package builds in its own folder: a copy under build/, not the source tree.
cp -r test_package "$work/test_package"

started=$(date +%s)
nice -n 10 "$conan" create . -pr:a "$profile" -s build_type=RelWithDebInfo \
  -tf "$work/test_package" -c "tools.build:jobs=$jobs" --build=missing "$@" \
  || { echo "check-conan: conan create failed (log above)" >&2; exit 1; }
ended=$(date +%s)

echo "check-conan: conan create and test_package passed in $((ended - started)) s"
if [ -s "$CCACHE_STATSLOG" ]; then
  echo "check-conan: ccache for this run:"
  ccache --show-log-stats 2>/dev/null | grep -Ei 'hits|misses|cacheable' | sed 's/^/  /' || true
fi
