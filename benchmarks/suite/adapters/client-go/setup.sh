#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# Builds the client-go adapters (one binary, --variant picks the row), the runtime
# benchmark's informer program (runtime/, bench-client-go-runtime) and the streaming
# benchmark's exec and port-forward program (streaming/, bench-client-go-streaming) into the
# bench cache, from the versions pinned in go.mod/go.sum. Quiet and quick when the binary is
# up to date: its stamp (the sources' and the Go version's hash) matches, in any clone of the
# repository.
set -euo pipefail
here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
cache="${KUBEX_BENCH_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/kubex-bench}"
bin="$cache/client-go/bench-client-go"
stamp="$bin.stamp"

command -v go >/dev/null || { echo "setup.sh: Go is needed to build the client-go adapters" >&2; exit 1; }
# Without cgo, as testenv is built (scripts/build-testenv.sh): the packages both compile
# (apimachinery, client-go) then come from one entry of Go's build cache. The adapter dials
# 127.0.0.1, so the resolver cgo would bring is never used.
export CGO_ENABLED=0
want="$( { go version; echo "CGO_ENABLED=$CGO_ENABLED"; cd "$here" && cat ./*.go runtime/*.go streaming/*.go measure/*.go go.mod go.sum; } |
  sha256sum | cut -d' ' -f1)"
if [[ -x "$bin" ]] && [[ -x "$bin-runtime" ]] && [[ -x "$bin-streaming" ]] && [[ -f "$stamp" ]] && [[ "$(cat "$stamp")" = "$want" ]]; then
  exit 0
fi
mkdir -p "$cache/client-go"
cd "$here"
echo "building $bin ($(go version | awk '{print $3}'))"
# -mod=readonly: go.mod/go.sum are the pins and are never rewritten; -p 1: the other peers'
# set-ups run beside it (run.py's set_up_peers).
GOFLAGS="-mod=readonly -buildvcs=false" go build -trimpath -p 1 -o "$bin.tmp" .
GOFLAGS="-mod=readonly -buildvcs=false" go build -trimpath -p 1 -o "$bin-runtime.tmp" ./runtime
GOFLAGS="-mod=readonly -buildvcs=false" go build -trimpath -p 1 -o "$bin-streaming.tmp" ./streaming
mv "$bin.tmp" "$bin"
mv "$bin-runtime.tmp" "$bin-runtime"
mv "$bin-streaming.tmp" "$bin-streaming"
echo "$want" >"$stamp"
