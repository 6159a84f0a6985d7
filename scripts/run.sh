#!/usr/bin/env bash
# The main job (README): builds kubex and testenv, starts a real control plane on loopback,
# seeds a namespace with Kubex's benchmark pods and lists them through kubex.
# Until the benchmark suite lands, this is the end-to-end demonstration; it then becomes
# the benchmark report.
#
#   scripts/run.sh [--pods N]     (default 500)
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
cd "$root"

pods=500
while [ $# -gt 0 ]; do
  case "$1" in
    --pods) pods=${2:?--pods needs a number}; shift 2 ;;
    --pods=*) pods=${1#--pods=}; shift ;;
    *) echo "usage: $0 [--pods N]" >&2; exit 2 ;;
  esac
done
[[ "$pods" =~ ^[0-9]+$ ]] || { echo "run: --pods must be a number, not '$pods'" >&2; exit 2; }

export CCACHE_BASEDIR="$root" CCACHE_NOHASHDIR=true  # cache hits across clones
echo "==> dependencies"
scripts/install-deps.sh
echo "==> build"
cmake --preset ci >/dev/null
cmake --build --preset ci -j "$(nproc)" --target kubex-list-pods
echo "==> control plane, seeding and listing"
export pods
scripts/with-testenv.sh bash -c '
  set -e
  "$KUBEX_TESTENV_BIN" seed --namespace bench --pods "$pods"
  echo "--- kubex-list-pods (3 runs) ---"
  for i in 1 2 3; do build/ci/examples/kubex-list-pods --kubeconfig "$KUBECONFIG" --namespace bench; done
'
