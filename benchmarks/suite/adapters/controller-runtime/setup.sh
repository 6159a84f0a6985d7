#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# Builds the controller-runtime program of the controller benchmark
# (bench-controller-runtime) into the bench cache, from the versions pinned in go.mod/go.sum.
# Quiet and quick when the binary is up to date: its stamp (the sources' and the Go version's
# hash) matches, in any clone of the repository.
set -euo pipefail
here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
cache="${KUBEX_BENCH_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/kubex-bench}"
bin="$cache/controller-runtime/bench-controller-runtime"
stamp="$bin.stamp"

command -v go >/dev/null || { echo "setup.sh: Go is needed to build the controller-runtime program" >&2; exit 1; }
# Without cgo, as testenv and the client-go adapters are built: the shared packages
# (apimachinery, client-go) then come from one entry of Go's build cache. The program dials
# 127.0.0.1, so the resolver cgo would bring is never used.
export CGO_ENABLED=0
want="$( { go version; echo "CGO_ENABLED=$CGO_ENABLED"; cd "$here" && cat ./*.go go.mod go.sum; } |
  sha256sum | cut -d' ' -f1)"
if [[ -x "$bin" ]] && [[ -f "$stamp" ]] && [[ "$(cat "$stamp")" = "$want" ]]; then
  exit 0
fi
mkdir -p "$cache/controller-runtime"
cd "$here"
echo "building $bin ($(go version | awk '{print $3}'))"
# -mod=readonly: go.mod/go.sum are the pins and are never rewritten; -p 1: the other peers'
# set-ups run beside it.
GOFLAGS="-mod=readonly -buildvcs=false" go build -trimpath -p 1 -o "$bin.tmp" .
mv "$bin.tmp" "$bin"
echo "$want" >"$stamp"
