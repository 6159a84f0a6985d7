# SPDX-License-Identifier: Apache-2.0
# kubex.pc and kubex-testing.pc for consumers without CMake:
#   c++ -std=c++20 main.cpp $(pkg-config --cflags --libs kubex)
# Written when installed, so that `prefix` is where the tree went (`cmake --install --prefix`,
# CPack's /usr), not where it was configured for.

# kubex_install_pkg_config(COMPONENT <component>): installs both files into <libdir>/pkgconfig.
function(kubex_install_pkg_config)
  cmake_parse_arguments(ARG "" "COMPONENT" "" ${ARGN})
  set(deps "openssl libnghttp2 yaml-cpp zlib simdjson")
  if(BUILD_SHARED_LIBS)
    set(KUBEX_PC_REQUIRES "")
    set(KUBEX_PC_REQUIRES_PRIVATE "${deps}")
  else()
    # A static archive's own dependencies belong on its consumer's link line.
    set(KUBEX_PC_REQUIRES "${deps}")
    set(KUBEX_PC_REQUIRES_PRIVATE "")
  endif()
  # Boost (headers only, in the public headers) has no pkg-config module of its own.
  set(KUBEX_PC_CFLAGS "")
  get_target_property(boost_dirs Boost::headers INTERFACE_INCLUDE_DIRECTORIES)
  foreach(dir IN LISTS boost_dirs)
    if(NOT dir IN_LIST CMAKE_CXX_IMPLICIT_INCLUDE_DIRECTORIES)
      string(APPEND KUBEX_PC_CFLAGS " -I${dir}")
    endif()
  endforeach()
  set(KUBEX_PC_MODELS "kubex_models_v${KUBEX_K8S_VERSION}")
  string(REPLACE "." "_" KUBEX_PC_MODELS "${KUBEX_PC_MODELS}")
  set(KUBEX_PC_PREFIX "@KUBEX_PC_PREFIX@")  # filled in at install time
  set(staged "${PROJECT_BINARY_DIR}/pkgconfig")
  foreach(name kubex kubex-testing)
    configure_file("${PROJECT_SOURCE_DIR}/cmake/${name}.pc.in" "${staged}/${name}.pc.in" @ONLY)
    install(CODE "
      file(READ \"${staged}/${name}.pc.in\" pc)
      string(REPLACE \"@KUBEX_PC_PREFIX@\" \"\${CMAKE_INSTALL_PREFIX}\" pc \"\${pc}\")
      set(dest \"\$ENV{DESTDIR}\${CMAKE_INSTALL_PREFIX}/${CMAKE_INSTALL_LIBDIR}/pkgconfig\")
      message(STATUS \"Installing: \${dest}/${name}.pc\")
      file(WRITE \"\${dest}/${name}.pc\" \"\${pc}\")"
      COMPONENT ${ARG_COMPONENT})
  endforeach()
endfunction()
