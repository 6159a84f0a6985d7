#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# Fails if a layer includes a header it must not see:
#   core/   -> no kubex/client, kubex/models, kubex/runtime, and no I/O library
#              (Asio, Beast, OpenSSL, sockets, file streams): core stays sans-IO.
#   client/ -> no models (kubex/k8s/...) or kubex/runtime: Api<T> is generic.
#   models/ -> no kubex/client, kubex/runtime or I/O library: models sit on core only.
#   testing/ -> no models or kubex/runtime: its doubles stand in for the client layer.
#   runtime/ -> no models (it is generic) and no transport internals: the public client API only.
# Usage: tools/check-layers.sh [repository root]   (default: the parent of this script's folder)
set -euo pipefail

root="${1:-$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)}"
status=0

# check LAYER DESCRIPTION REGEX: report every #include in LAYER's C++ files that matches REGEX.
check() {
  local layer="$1" description="$2" pattern="$3"
  local dir="$root/$layer"
  [[ -d "$dir" ]] || return 0
  local hits
  hits="$(grep -rnE --include='*.hpp' --include='*.h' --include='*.cpp' --include='*.cc' \
    --include='*.ipp' --include='*.hpp.in' \
    "^[[:space:]]*#[[:space:]]*include[[:space:]]*[<\"]($pattern)" "$dir" || true)"
  if [[ -n "$hits" ]]; then
    echo "layering violation: $layer/ must not include $description:" >&2
    echo "$hits" | sed "s|^$root/|  |" >&2
    status=1
  fi
}

check core "higher kubex layers" 'kubex/(client|models|runtime|k8s)/'
check core "I/O libraries" 'boost/asio|boost/beast|asio\.hpp|asio/|openssl/|curl/|sys/socket\.h|netinet/|arpa/inet\.h|fstream'
check client "higher kubex layers or models (Api<T> is generic)" 'kubex/(models|runtime|k8s)/'
check models "the client or runtime layers (models know no I/O)" 'kubex/(client|runtime)/'
check testing "models or runtime (test doubles for the client layer)" 'kubex/(models|runtime|k8s)/'
check runtime "models (the runtime is generic over T)" 'kubex/(models|k8s)/'
check runtime "the transport's internals" '(client/src|kubex/client/detail|detail/)'
check models "I/O libraries" 'boost/asio|boost/beast|asio\.hpp|asio/|openssl/|curl/|sys/socket\.h|netinet/|arpa/inet\.h|fstream'

if [[ $status -eq 0 ]]; then
  echo "layering OK"
fi
exit $status
