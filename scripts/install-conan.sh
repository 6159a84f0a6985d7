#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# Installs Conan 2 from PyPI at the pinned version into a venv outside the repository, once,
# and prints the path of its conan binary:   conan=$(scripts/install-conan.sh)
#
# The venv lives under ${KUBEX_CACHE_DIR:-${XDG_CACHE_HOME:-$HOME/.cache}/kubex}/conan-<version>,
# so a second run (or another work tree) reuses it; pip reaches PyPI only on the first run.
# Conan's own home (CONAN_HOME: its cache, profiles and remotes) is not set up here: the
# caller chooses it (scripts/check-conan.sh uses a fresh one under the build directory).
set -euo pipefail

# Bump deliberately: the recipe and conan/profiles/ are tested with this version.
version=2.34.0
cache="${KUBEX_CACHE_DIR:-${XDG_CACHE_HOME:-$HOME/.cache}/kubex}"
venv="$cache/conan-$version"
conan="$venv/bin/conan"

# A marker written last: an interrupted install is redone, not trusted.
done_marker="$venv/.kubex-installed"
if [ -f "$done_marker" ] && [ -x "$conan" ]; then
  echo "$conan"
  exit 0
fi

python=$(command -v python3 || true)
[ -n "$python" ] || { echo "install-conan: python3 not found on PATH" >&2; exit 1; }
"$python" -c 'import venv, ensurepip' 2>/dev/null \
  || { echo "install-conan: $python lacks venv/ensurepip (Debian: apt-get install python3-venv)" >&2; exit 1; }

rm -rf "$venv"
mkdir -p "$cache"
"$python" -m venv "$venv" >&2
"$venv/bin/python" -m pip install --quiet --disable-pip-version-check "conan==$version" >&2 \
  || { echo "install-conan: pip install conan==$version failed (is PyPI reachable?)" >&2; exit 1; }
"$conan" --version | grep -qF "$version" \
  || { echo "install-conan: $conan does not report version $version" >&2; exit 1; }
touch "$done_marker"
echo "$conan"
