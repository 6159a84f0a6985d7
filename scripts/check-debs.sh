#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# Consumer check 5 (issue 39): builds the .debs of a build tree with CPack
# (cmake/KubexPackaging.cmake), prints their names and sizes, checks their control data and
# contents, unpacks them with `dpkg -x` into a scratch prefix (nothing is installed into the
# machine), and builds and runs test_package/ against that prefix, which also shows the CMake
# package relocatable (it was made for /usr, it is used from elsewhere).
#
#   cmake --build --preset ci --target kubex_libraries
#   scripts/check-debs.sh build/ci
#   scripts/with-testenv.sh scripts/check-debs.sh build/ci   (lists namespaces on testenv)
#
# Writes to <build-dir>/debs only. The consumer runs against KUBEX_TESTENV_KUBECONFIG when set;
# KUBEX_DEBS_LINTIAN=1 also runs lintian on the packages.
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)

fail() { echo "check-debs: $*" >&2; exit 1; }

[ $# -eq 1 ] || { echo "usage: $0 <build-dir>" >&2; exit 2; }
build=$(cd "$1" 2>/dev/null && pwd) || fail "no build directory $1"
[ -f "$build/CPackConfig.cmake" ] \
  || fail "$build has no CPackConfig.cmake: configure it from this source tree (cmake --preset ci)"
for tool in cpack dpkg-deb dpkg cmake; do
  command -v "$tool" >/dev/null || fail "$tool not found on PATH"
done

out="$build/debs"
prefix="$out/prefix"
rm -rf "$out"
mkdir -p "$out"

# cpack installs the build tree's components itself; a tree without the libraries built stops
# there, naming the target to build.
cpack --config "$build/CPackConfig.cmake" -G DEB -B "$out" >"$out/cpack.log" 2>&1 \
  || { cat "$out/cpack.log" >&2; fail "cpack -G DEB failed (log above)"; }

mapfile -t debs < <(find "$out" -maxdepth 1 -name '*.deb' | sort)
[ ${#debs[@]} -gt 0 ] || fail "cpack made no .deb (log: $out/cpack.log)"
echo "check-debs: packages"
for deb in "${debs[@]}"; do
  printf '  %-48s %8s bytes (%s)\n' "$(basename "$deb")" "$(stat -c %s "$deb")" "$(du -h "$deb" | cut -f1)"
done

# The package of a given name, or nothing.
package_file() {
  local deb
  for deb in "${debs[@]}"; do
    [ "$(dpkg-deb -f "$deb" Package)" = "$1" ] && { echo "$deb"; return; }
  done
  return 0
}
# The file holding a package's paths, one a line, a symlink's own path and not its target.
# Written once and read from a file: grep -q on a live dpkg-deb pipe would kill it, and
# pipefail fail the check.
files() {
  local list="$out/$(basename "$1" .deb).files"
  [ -f "$list" ] || dpkg-deb -c "$1" | sed -E 's/ -> .*$//' | awk '{print $NF}' >"$list"
  echo "$list"
}
# Fails unless the package has a path matching the extended regex.
has_file() {
  grep -Eq "$2" "$(files "$1")" || fail "$(basename "$1") holds no file matching $2"
}

dev=$(package_file libkubex-dev)
[ -n "$dev" ] || fail "no libkubex-dev package among: ${debs[*]##*/}"
has_file "$dev" '^\./usr/include/kubex/client/api\.hpp$'
has_file "$dev" '^\./usr/lib/(.*/)?cmake/kubex/kubexConfig\.cmake$'
has_file "$dev" '^\./usr/lib/(.*/)?cmake/kubex/kubexTargets\.cmake$'
has_file "$dev" '^\./usr/share/doc/libkubex-dev/copyright$'

shared=0
if grep -Eq '^\./usr/lib/(.*/)?libkubex_core\.so$' "$(files "$dev")"; then
  shared=1
  runtime=$(package_file "$(dpkg-deb -f "$dev" Depends | grep -Eo 'libkubex[0-9.]+' | head -1)")
  [ -n "$runtime" ] || fail "shared build: libkubex-dev depends on no libkubex<soversion> package made here"
  has_file "$runtime" '^\./usr/lib/(.*/)?libkubex_core\.so\.[0-9]'
  has_file "$runtime" '^\./usr/share/doc/libkubex[0-9.]+/copyright$'
  grep -Eq '\.(a|hpp)$' "$(files "$runtime")" \
    && fail "$(basename "$runtime") holds development files"
  grep -Eq '\.so\.[0-9]' "$(files "$dev")" \
    && fail "libkubex-dev holds the shared libraries themselves, not only their namelinks"
else
  has_file "$dev" '^\./usr/lib/(.*/)?libkubex_core\.a$'
  [ ${#debs[@]} -eq 1 ] || fail "static build: expected libkubex-dev alone, got: ${debs[*]##*/}"
fi

for deb in "${debs[@]}"; do
  echo "check-debs: $(basename "$deb")"
  dpkg-deb -f "$deb" Package Version Architecture Section Depends Recommends | sed 's/^/  /'
  echo "  files: $(grep -vc '/$' "$(files "$deb")")"
  case "$(dpkg-deb -f "$deb" Description | head -1)" in
    *" - development files" | *" - shared libraries") ;;
    *) fail "$(basename "$deb"): the synopsis does not say what the package holds" ;;
  esac
  for field in Package Version Architecture Maintainer Description; do
    [ -n "$(dpkg-deb -f "$deb" "$field")" ] || fail "$(basename "$deb") has no $field"
  done
  dpkg-deb -x "$deb" "$prefix"
done

# Debian's own checker, on request (KUBEX_DEBS_LINTIAN=1; apt-get install lintian): it takes
# about a minute over the static archives. Errors fail; warnings are shown
# (initial-upload-closes-no-bugs concerns uploads to Debian's archive only).
if [ "${KUBEX_DEBS_LINTIAN:-0}" = 1 ]; then
  command -v lintian >/dev/null || fail "KUBEX_DEBS_LINTIAN=1 but lintian is not installed"
  lintian --tag-display-limit 0 "${debs[@]}" >"$out/lintian.log" 2>&1 || true
  grep -E '^[EW]: ' "$out/lintian.log" | sed 's/^/  lintian: /' || true
  ! grep -q '^E: ' "$out/lintian.log" || fail "lintian reports errors (above; $out/lintian.log)"
fi

# Relocatable: nothing installed may name the build or source tree (the CMake files must work
# out their prefix from where they lie, as the unpacked prefix is not /usr).
if grep -rIl -e "$build" -e "$root/" "$prefix" >"$out/absolute-paths.txt"; then
  cat "$out/absolute-paths.txt" >&2
  fail "files above name the build or source tree ($build, $root)"
fi

# pkg-config: kubex.pc says prefix=/usr; --define-prefix takes the prefix from where the file
# lies, as a relocated prefix needs. (It redefines the system modules' prefixes as well, so
# kubex's own variables are checked, not the whole --cflags line.)
pc=$(grep -Em1 '^\./usr/lib/(.*/)?pkgconfig/kubex\.pc$' "$(files "$dev")" || true)
if [ -n "$pc" ]; then
  command -v pkg-config >/dev/null || fail "pkg-config not found on PATH"
  pc_dir="$prefix/$(dirname "${pc#./}")"
  [ "$(pkg-config --variable=prefix "$pc_dir/kubex.pc")" = /usr ] \
    || fail "$pc: prefix is not /usr"
  for var in includedir libdir; do
    value=$(PKG_CONFIG_PATH="$pc_dir" pkg-config --define-prefix --variable=$var kubex) \
      || fail "pkg-config fails on the unpacked $pc"
    case "$value" in
      "$prefix"/usr/*) ;;
      *) fail "pkg-config --define-prefix kubex: $var is $value, not under $prefix/usr" ;;
    esac
  done
  PKG_CONFIG_PATH="$pc_dir" pkg-config --exists --print-errors kubex \
    || fail "pkg-config kubex: a module it requires is missing"
  echo "check-debs: kubex.pc: prefix=/usr, relocates to $prefix/usr"
else
  echo "check-debs: no kubex.pc in libkubex-dev (this tree installs none): pkg-config not checked"
fi

# test_package/ is a plain CMake project; the same compiler and ccache as the build.
compiler=$(sed -n 's/^CMAKE_CXX_COMPILER:[A-Z]*=//p' "$build/CMakeCache.txt")
launcher=$(sed -n 's/^CMAKE_CXX_COMPILER_LAUNCHER:[A-Z]*=//p' "$build/CMakeCache.txt")
config=$(sed -n 's/^CMAKE_BUILD_TYPE:[A-Z]*=//p' "$build/CMakeCache.txt")
consumer="$out/consumer"
cmake -S "$root/test_package" -B "$consumer" -G Ninja \
  "-DCMAKE_PREFIX_PATH=$prefix/usr" "-DCMAKE_BUILD_TYPE=${config:-RelWithDebInfo}" \
  "-DCMAKE_CXX_COMPILER=$compiler" ${launcher:+"-DCMAKE_CXX_COMPILER_LAUNCHER=$launcher"} \
  -DCMAKE_EXPORT_COMPILE_COMMANDS=ON >"$out/consumer-configure.log" 2>&1 \
  || { cat "$out/consumer-configure.log" >&2; fail "configuring test_package against $prefix/usr failed"; }
kubex_dir=$(sed -n 's/^kubex_DIR:[A-Z]*=//p' "$consumer/CMakeCache.txt")
case "$kubex_dir" in
  "$prefix"/usr/*) ;;
  *) fail "find_package(kubex) found $kubex_dir, not the unpacked package under $prefix" ;;
esac
grep -q -- "$prefix/usr/include" "$consumer/compile_commands.json" \
  || fail "test_package compiles without $prefix/usr/include: the CMake package is not relocatable"
nice -n 10 cmake --build "$consumer" >"$out/consumer-build.log" 2>&1 \
  || { cat "$out/consumer-build.log" >&2; fail "building test_package against the .debs failed"; }

program="$consumer/kubex_test_package"
if ((shared)); then
  libs=$(ldd "$program")
  grep -q "=> $prefix/usr/lib/libkubex_core\.so\.[0-9]" <<<"$libs" \
    || { echo "$libs" >&2; fail "test_package does not load libkubex_core from $prefix"; }
  echo "check-debs: test_package loads $(grep -c "=> $prefix" <<<"$libs") libraries from the .debs:"
  grep "=> $prefix" <<<"$libs" | sed 's/^\s*/  /'
fi
if [ -n "${KUBEX_TESTENV_KUBECONFIG:-}" ]; then
  echo "check-debs: test_package against $KUBEX_TESTENV_KUBECONFIG"
fi
"$program" || fail "test_package (built against the .debs) failed"
echo "check-debs: passed ($([ $shared = 1 ] && echo shared || echo static) build, ${#debs[@]} package(s))"
