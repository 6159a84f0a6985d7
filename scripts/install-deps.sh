#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# Installs every system dependency kubex needs on Debian 12, idempotently.
# C++ libraries come from Debian packages only; Go modules for tools/testenv are
# fetched by `go mod download` into the Go module cache (outside the repository).
#
#   scripts/install-deps.sh           what the build and the tests need
#   scripts/install-deps.sh --bench   also what the benchmark report needs (charts)
set -euo pipefail
bench=0
for a in "$@"; do
  case "$a" in
    --bench) bench=1 ;;
    *) echo "usage: $0 [--bench]" >&2; exit 2 ;;
  esac
done

packages=(
  build-essential cmake ninja-build ccache pkg-config git
  libboost1.81-dev libboost-url1.81-dev
  libssl-dev zlib1g-dev libsimdjson-dev libyaml-cpp-dev libnghttp2-dev
  libgtest-dev libgmock-dev libbenchmark-dev
  # tests/integration/proxy_test.cpp: real HTTP CONNECT and SOCKS5 proxies (no daemons started)
  tinyproxy-bin microsocks
  clang-format-15 python3 python3-yaml
  # scripts/fuzz.sh: clang with libFuzzer and the sanitizer runtimes (libclang_rt.fuzzer,
  # asan, ubsan are in libclang-common-15-dev, which clang-15 depends on)
  clang-15 libclang-common-15-dev
)
# benchmarks/suite: the report's PNG charts; venvs for the Python peers; npm for the
# client-node peer's pinned packages (Debian's, unless an npm is on PATH already).
# python3-munkres answers python3-fonttools' "python3-scipy | python3-munkres": without it,
# and without recommends, apt picks scipy, whose python3-pythran needs libboost-dev (1.74),
# which conflicts with libboost1.81-dev above, in either order of installation.
((bench)) && packages+=(python3-matplotlib python3-munkres python3-venv)
if ((bench)) && ! command -v npm >/dev/null; then packages+=(npm); fi

missing=()
for p in "${packages[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q 'install ok installed' || missing+=("$p")
done

if ((${#missing[@]})); then
  echo "install-deps: installing ${missing[*]}" >&2
  sudo_cmd=()
  [ "$(id -u)" -eq 0 ] || sudo_cmd=(sudo)
  export DEBIAN_FRONTEND=noninteractive
  "${sudo_cmd[@]}" apt-get update -qq
  log=$(mktemp)
  if ! "${sudo_cmd[@]}" apt-get install -y -qq --no-install-recommends "${missing[@]}" >"$log" 2>&1; then
    cat "$log" >&2
    rm -f "$log"
    echo "install-deps: apt-get could not install ${missing[*]} (its output is above)" >&2
    exit 1
  fi
  rm -f "$log"
fi
# What apt said it installed is checked, so a package that resolved to something else fails here.
for p in "${packages[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q 'install ok installed' ||
    { echo "install-deps: $p is still not installed" >&2; exit 1; }
done

command -v go >/dev/null || { echo "install-deps: Go >= 1.25 is required for tools/testenv (not found on PATH)" >&2; exit 1; }
# kubectl is not needed on PATH: scripts/build-testenv.sh builds kubectl of the control
# plane's version with testenv, and scripts/with-testenv.sh puts it first on PATH.
echo "install-deps: ok" >&2
