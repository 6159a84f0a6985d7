# SPDX-License-Identifier: Apache-2.0
# kubex_library(<target>...): what every kubex library shares, static or shared
# (BUILD_SHARED_LIBS).
#
# - Symbols are hidden by default: a shared library exports only what its headers mark KUBEX_API
#   (kubex/core/export.hpp), not the template instantiations of Asio, simdjson, yaml-cpp or the
#   standard library it is made of. A static build uses the same settings, so that a symbol left
#   unmarked is found by the shared build's tests, whichever build a change was tried in.
# - A shared library carries its version, and a soname of major.minor: a 0.x minor release may
#   break the ABI (docs: stability policy), so libkubex_core.so.0.1 and .so.0.2 are different
#   libraries to the dynamic linker.
function(kubex_library)
  foreach(target IN LISTS ARGN)
    set_target_properties(${target} PROPERTIES
      CXX_VISIBILITY_PRESET hidden
      VISIBILITY_INLINES_HIDDEN ON
      VERSION "${PROJECT_VERSION}"
      SOVERSION "${PROJECT_VERSION_MAJOR}.${PROJECT_VERSION_MINOR}")
  endforeach()
endfunction()
