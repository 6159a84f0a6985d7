#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# Checks what kubex's shared libraries export (the shared build runs it as a unit test):
# - the soname is lib<name>.so.<major>.<minor> (a 0.x minor may break the ABI);
# - every exported symbol is kubex's own (namespace kubex: functions, variables, and the
#   typeinfo, vtables and guards of its types), or one that the headers of the standard library
#   or of Boost declare with default visibility, which -fvisibility=hidden does not override:
#   - std and __gnu_cxx: libstdc++'s templates, instantiated over built-in, standard, kubex or
#     Asio types. The dynamic linker must merge these copies with the program's (the static
#     locals of inline functions, typeinfo).
#   - boost::asio: Asio's headers push default visibility on purpose, so that its per-process
#     state is one across the program and its libraries: the thread's call stack (which
#     io_context runs on this thread, without which a dispatch from the library onto the
#     program's io_context would always post), service ids, OpenSSL's initialisation. Its
#     templates instantiated over kubex's handlers and Beast's operations are exported with it.
#   - boost::system and Boost's exception types (wrapexcept, exception, gregorian's bad_*):
#     declared BOOST_SYMBOL_VISIBLE so that a catch and an error_code comparison work across a
#     library boundary.
#   Anything else (Beast's own code, simdjson, yaml-cpp, nghttp2, OpenSSL, C symbols, a template
#   over simdjson, yaml-cpp or nghttp2 types) means a header or a target lost its hidden
#   visibility. The failure lists the first symbols.
#   tests/scripts/check_shared_exports.sh <major.minor> <lib.so>...
set -euo pipefail
soversion=$1
shift
(($#)) || { echo "usage: $0 <major.minor> <lib.so>..." >&2; exit 2; }
# Mangled names: the namespace comes first, after the special-name prefixes (_ZTI typeinfo,
# _ZTS its name, _ZTV vtable, _ZTT VTT, _ZTH/_ZTW TLS init/wrapper, _ZGV guard variable, _ZTh
# and _ZTv thunks, _ZZ a function's static local) and N with its cv/ref qualifiers.
prefix='^_Z(TI|TS|TV|TT|TH|TW|GV|Th[n0-9]+_|Tv[n0-9]+_[n0-9]+_)?Z*N?[KVRO]*'
kubex_ns='5kubex'
std_ns='(St|Sa|Sb|Ss|Si|So|Sd|9__gnu_cxx)'
boost_ns='5boost(4asio|6system|10wrapexcept|9exception|16exception_detail|6detail15sp_counted_base|9gregorian)'
foreign='simdjson|YAML|nghttp2'
status=0
for lib in "$@"; do
  name=$(basename "$lib")
  name=${name%%.so*}
  soname=$(readelf -d "$lib" | sed -n 's/.*Library soname: \[\(.*\)\].*/\1/p')
  if [ "$soname" != "$name.so.$soversion" ]; then
    echo "FAIL: $lib: soname '$soname', expected '$name.so.$soversion'" >&2
    status=1
  fi
  symbols=$(nm -D --defined-only "$lib" | awk '{ print $NF }' | sort -u)
  count() { grep -cE "$1" <<<"$symbols" || true; }
  kubex=$(count "${prefix}${kubex_ns}")
  std=$(count "${prefix}${std_ns}")
  boost=$(count "${prefix}${boost_ns}")
  other=$(grep -vE "${prefix}(${kubex_ns}|${std_ns}|${boost_ns})" <<<"$symbols" || true)
  # A standard or Asio template instantiated over a third-party type exports that type's code.
  foreign_instances=$(grep -E "${prefix}(${std_ns}|${boost_ns})" <<<"$symbols" | grep -E "$foreign" || true)
  echo "$name: $(grep -c . <<<"$symbols") exported: $kubex kubex, $std standard library," \
    "$boost Boost (Asio, System, exceptions)"
  if [ "$kubex" -eq 0 ]; then
    echo "FAIL: $lib exports nothing of kubex's (is KUBEX_API defined away?)" >&2
    status=1
  fi
  for leaked in "$other" "$foreign_instances"; do
    if [ -n "$leaked" ]; then
      echo "FAIL: $lib exports $(grep -c . <<<"$leaked") symbols that are not kubex's:" >&2
      head -20 <<<"$leaked" | c++filt | cut -c1-300 | sed 's/^/  /' >&2
      status=1
    fi
  done
done
exit $status
