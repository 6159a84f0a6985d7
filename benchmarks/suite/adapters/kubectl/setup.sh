#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# Builds kubectl v1.35.4 on its own (main.go) into the bench cache, from the versions pinned
# in go.mod/go.sum, stamped with its release version as scripts/build-testenv.sh stamps
# testenv's. The streaming benchmark times `kubectl exec` with it: testenv's kubectl is the
# same code inside a binary that also carries the control plane, whose start-up would count.
# Quiet and quick when the binary is up to date (its stamp: the sources' and Go's hash).
set -euo pipefail
here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
cache="${KUBEX_BENCH_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/kubex-bench}"
bin="$cache/kubectl/kubectl"
stamp="$bin.stamp"

command -v go >/dev/null || { echo "setup.sh: Go is needed to build kubectl" >&2; exit 1; }
# Without cgo, as testenv is built: the packages both compile come from Go's build cache.
export CGO_ENABLED=0
want="$( { go version; echo "CGO_ENABLED=$CGO_ENABLED"; cd "$here" && cat ./*.go go.mod go.sum; } |
  sha256sum | cut -d' ' -f1)"
if [[ -x "$bin" ]] && [[ -f "$stamp" ]] && [[ "$(cat "$stamp")" = "$want" ]]; then
  exit 0
fi
mkdir -p "$cache/kubectl"
cd "$here"
version=$(go list -m -f '{{.Version}}' k8s.io/kubectl | sed 's/^v0\./v1./')
ld=""
for pkg in k8s.io/component-base/version k8s.io/client-go/pkg/version; do
  ld="$ld -X $pkg.gitVersion=$version -X $pkg.gitMajor=1 -X $pkg.gitMinor=$(cut -d. -f2 <<<"$version") -X $pkg.gitTreeState=clean"
done
echo "building $bin ($version, $(go version | awk '{print $3}'))"
# -mod=readonly: go.mod/go.sum are the pins and are never rewritten; -p 1: the other peers'
# set-ups run beside it.
GOFLAGS="-mod=readonly -buildvcs=false" go build -trimpath -p 1 -ldflags "-s -w $ld" -o "$bin.tmp" .
mv "$bin.tmp" "$bin"
echo "$want" >"$stamp"
