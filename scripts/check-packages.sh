#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# Builds test_package/test_package.cpp (the one consumer program, also Conan's test_package)
# each way a user takes kubex in, with tests/packaging/CMakeLists.txt, and runs it:
#   find_package   an installed tree (cmake --install of build/ci)
#   pkg-config     the same tree, with a plain compiler line
#   add_subdirectory and FetchContent (from a local path): the source tree, built by the consumer
#   deb            the .deb of build/ci, unpacked with dpkg -x (scripts/check-debs.sh)
#   conan          `conan create` of the recipe and its test_package (scripts/check-conan.sh)
#   shared         build/shared (preset shared) installed: the program runs on the shared
#                  libraries of the prefix (ldd says so)
#   deb-shared     the .debs of build/shared: libkubex0.1 and libkubex-dev
# With KUBEX_TESTENV_KUBECONFIG set (scripts/with-testenv.sh), each program lists the namespaces
# of that real apiserver; without, it checks only that headers and library agree on the version.
# Prints the size of what each way installs. Needs build/ci's libraries (built if missing).
#
#   scripts/check-packages.sh [--only NAME[,NAME...]]
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
cd "$root"

only=""
while [ $# -gt 0 ]; do
  case "$1" in
    --only) only=",$2,"; shift 2 ;;
    *) echo "usage: $0 [--only find_package,pkg-config,add_subdirectory,FetchContent,deb,conan,shared,deb-shared]" >&2
      exit 2 ;;
  esac
done
wanted() { [ -z "$only" ] || [[ "$only" == *",$1,"* ]]; }

export CCACHE_BASEDIR="$root" CCACHE_NOHASHDIR=true
kubeconfig=${KUBEX_TESTENV_KUBECONFIG:-}
work="$root/build/packages"
consumer="$root/tests/packaging"
mkdir -p "$work"
# The consumer builds use build/ci's compiler flags (the ci preset), so that ccache finds the
# objects build/ci compiled; their build folders sit at build/ci's depth for the same reason
# (ccache hashes paths relative to the folder a compiler runs in).
flags=(-G Ninja -DCMAKE_BUILD_TYPE=RelWithDebInfo "-DCMAKE_CXX_FLAGS_RELWITHDEBINFO=-O2 -g1 -DNDEBUG")
command -v ccache >/dev/null && flags+=(-DCMAKE_CXX_COMPILER_LAUNCHER=ccache)

section() { echo; echo "--> $* ($(date +%T))"; }
# Runs a consumer program: with a kubeconfig, against that apiserver.
run_consumer() {
  local program=$1 how=$2
  if [ -n "$kubeconfig" ]; then
    "$program" "$kubeconfig" >"$work/$how.out" ||
      { cat "$work/$how.out"; echo "error: $how: the consumer failed against the apiserver" >&2; exit 1; }
    echo "$how: $(head -n 1 "$work/$how.out"); $(grep -c '^namespace ' "$work/$how.out") namespaces listed"
  else
    "$program" || { echo "error: $how: the consumer failed" >&2; exit 1; }
  fi
}

prefix="$work/prefix"
if wanted find_package || wanted pkg-config || wanted deb; then
  section "install build/ci into $prefix"
  if [ ! -f build/ci/CMakeCache.txt ]; then
    cmake --preset ci >/dev/null
  fi
  cmake --build build/ci --target kubex_libraries
  rm -rf "$prefix"
  cmake --install build/ci --prefix "$prefix" >/dev/null
  echo "installed: $(du -sh "$prefix" | cut -f1) ($(find "$prefix" -type f | wc -l) files)"
fi

if wanted find_package; then
  section "find_package(kubex) of the installed tree"
  rm -rf "$work/find_package"
  cmake -S "$consumer" -B "$work/find_package" "${flags[@]}" -DCMAKE_PREFIX_PATH="$prefix" >/dev/null
  cmake --build "$work/find_package"
  run_consumer "$work/find_package/kubex-list-namespaces" find_package
fi

if wanted pkg-config; then
  section "pkg-config --cflags --libs kubex, with a plain compiler line"
  pcdir=$(dirname "$(find "$prefix" -name kubex.pc -print -quit)")
  [ -f "$pcdir/kubex.pc" ] || { echo "error: no kubex.pc under $prefix" >&2; exit 1; }
  export PKG_CONFIG_PATH="$pcdir"
  pkg-config --validate kubex && pkg-config --validate kubex-testing
  pkg-config --libs kubex-testing | grep -q -- "-lkubex_testing .*-lkubex_core" ||
    { echo "error: kubex-testing.pc does not bring kubex along" >&2; exit 1; }
  [ "$(pkg-config --modversion kubex)" = "$(sed -nE 's/^project\(kubex VERSION ([0-9.]+).*/\1/p' CMakeLists.txt)" ] ||
    { echo "error: kubex.pc's version differs from CMakeLists.txt's" >&2; exit 1; }
  read -r -a pc_flags <<<"$(pkg-config --cflags --libs kubex)"
  echo "c++ -std=c++20 test_package.cpp ${pc_flags[*]}"
  mkdir -p "$work/pkg-config"
  ${CXX:-c++} -std=c++20 -O1 "$root/test_package/test_package.cpp" "${pc_flags[@]}" \
    -o "$work/pkg-config/kubex-list-namespaces"
  run_consumer "$work/pkg-config/kubex-list-namespaces" pkg-config
  unset PKG_CONFIG_PATH
fi

# add_subdirectory and FetchContent build kubex inside the consumer's own build.
for mode in add_subdirectory FetchContent; do
  wanted "$mode" || continue
  section "$mode of the source tree"
  dir="$root/build/consumer-$mode"
  rm -rf "$dir"
  cmake -S "$consumer" -B "$dir" "${flags[@]}" -DKUBEX_WERROR=ON -DKUBEX_CONSUMER_MODE="$mode" \
    -DKUBEX_CONSUMER_SOURCE_DIR="$root" >"$work/$mode-configure.log" ||
    { cat "$work/$mode-configure.log"; exit 1; }
  cmake --build "$dir" --target kubex-list-namespaces >"$work/$mode-build.log" ||
    { tail -n 40 "$work/$mode-build.log"; exit 1; }
  run_consumer "$dir/kubex-list-namespaces" "$mode"
done

if wanted deb; then
  section "the .debs of build/ci, unpacked with dpkg -x"
  scripts/check-debs.sh build/ci
fi

if wanted conan; then
  section "conan create and its test_package"
  scripts/check-conan.sh
fi

if wanted shared || wanted deb-shared; then
  section "build/shared: the shared libraries"
  if [ ! -f build/shared/CMakeCache.txt ]; then
    cmake --preset shared >/dev/null
  fi
  cmake --build build/shared --target kubex_libraries
fi

if wanted shared; then
  section "the shared libraries installed, and a program that runs on them"
  shared_prefix="$work/shared-prefix"
  rm -rf "$shared_prefix" "$work/shared"
  cmake --install build/shared --prefix "$shared_prefix" >/dev/null
  echo "installed: $(du -sh "$shared_prefix" | cut -f1);" \
    "$(find "$shared_prefix" -name 'libkubex_*.so.*.*.*' -printf '%f %s B, ' | sed 's/, $//')"
  cmake -S "$consumer" -B "$work/shared" "${flags[@]}" -DCMAKE_PREFIX_PATH="$shared_prefix" >/dev/null
  cmake --build "$work/shared"
  program="$work/shared/kubex-list-namespaces"
  # Each kubex library the program needs must resolve into the prefix, by its 0.1 soname.
  ldd "$program" | grep 'libkubex' | sed 's/^[[:space:]]*/  /'
  for lib in core client; do
    ldd "$program" | grep -q "libkubex_$lib\.so\.[0-9]*\.[0-9]* => $shared_prefix/" ||
      { echo "error: ldd does not show libkubex_$lib from $shared_prefix" >&2; exit 1; }
  done
  run_consumer "$program" shared
fi

if wanted deb-shared; then
  section "the .debs of build/shared, unpacked with dpkg -x"
  scripts/check-debs.sh build/shared
fi

echo; echo "packages: every consumer built and ran"
