# SPDX-License-Identifier: Apache-2.0
# Debian packages of the installed tree (CPack; scripts/check-debs.sh builds and checks them):
#
#   libkubex0.1   the shared libraries (install component Runtime), as Debian names a library
#                 package after its soname; a static build (the default) has none, so no package
#   libkubex-dev  headers, the CMake and pkg-config packages, the static libraries or the
#                 shared libraries' namelinks, the CRD model generator (component Development)
#
#   cmake --build <dir> --target kubex_libraries && cpack --config <dir>/CPackConfig.cmake -G DEB
#
# Included before the install rules: an install() without COMPONENT is Development.
# Dependencies carry Debian 12's package names, as the build finds them (scripts/install-deps.sh).

set(CMAKE_INSTALL_DEFAULT_COMPONENT_NAME Development)

if(NOT PROJECT_IS_TOP_LEVEL)
  return()  # a parent project's packaging is its own
endif()

# A package is made from what the libraries' build installed, not from a build of every target
# (tests, examples), which `install` and, with Makefiles, cpack's preinstall step run first by
# default. A tree without the libraries fails the install naming the target to build
# (kubex_install_requires_built).
set(CMAKE_SKIP_INSTALL_ALL_DEPENDENCY ON)

# The soname's version (0.x: every minor may break the ABI), which names the runtime package.
set(KUBEX_DEBIAN_SOVERSION "${PROJECT_VERSION_MAJOR}.${PROJECT_VERSION_MINOR}")
set(KUBEX_DEBIAN_RUNTIME_PACKAGE "libkubex${KUBEX_DEBIAN_SOVERSION}")
set(KUBEX_DEBIAN_DEV_PACKAGE "libkubex-dev")
# The Debian revision of a packaging of the same upstream version.
set(KUBEX_DEBIAN_RELEASE 1)

# /usr/share/doc/<package>/: Debian's copyright file (machine-readable format), LICENSE, NOTICE.
set(KUBEX_DEBIAN_COPYRIGHT "${PROJECT_BINARY_DIR}/debian/copyright")
file(CONFIGURE OUTPUT "${KUBEX_DEBIAN_COPYRIGHT}" CONTENT [=[
Format: https://www.debian.org/doc/packaging-manuals/copyright-format/1.0/
Upstream-Name: kubex
Comment: NOTICE, beside this file, names what kubex carries from Kubernetes.

Files: *
Copyright: 2026 The kubex authors
License: Apache-2.0

Files: include/kubex/k8s/*
Copyright: The Kubernetes Authors
Comment: Generated from the Kubernetes OpenAPI documents; the field documentation is the
 Kubernetes API reference text.
License: Apache-2.0

License: Apache-2.0
 On Debian systems the full text of the Apache License 2.0 is in
 /usr/share/common-licenses/Apache-2.0, and in LICENSE beside this file.
]=] @ONLY)
# Who answers for the packages: set it to a real name and address when publishing them.
set(KUBEX_DEBIAN_MAINTAINER "The kubex authors <kubex@packages.invalid>" CACHE STRING
  "Maintainer field of the .debs (Name <address>)")
# A non-native package carries a Debian changelog; this one says where the package came from.
# Its date honours SOURCE_DATE_EPOCH (reproducible builds).
string(TIMESTAMP kubex_debian_date "%a, %d %b %Y %H:%M:%S +0000" UTC)
file(CONFIGURE OUTPUT "${PROJECT_BINARY_DIR}/debian/changelog.Debian" CONTENT
"kubex (${PROJECT_VERSION}-${KUBEX_DEBIAN_RELEASE}) unstable; urgency=medium

  * kubex ${PROJECT_VERSION}, packaged by CPack (cmake/KubexPackaging.cmake). What changed
    upstream: CHANGELOG.md in the sources.

 -- ${KUBEX_DEBIAN_MAINTAINER}  ${kubex_debian_date}
")
file(ARCHIVE_CREATE OUTPUT "${PROJECT_BINARY_DIR}/debian/changelog.Debian.gz"
  PATHS "${PROJECT_BINARY_DIR}/debian/changelog.Debian" FORMAT raw COMPRESSION GZip COMPRESSION_LEVEL 9)

set(kubex_doc_components Development)
if(BUILD_SHARED_LIBS)
  list(APPEND kubex_doc_components Runtime)
endif()
foreach(component IN LISTS kubex_doc_components)
  if(component STREQUAL "Runtime")
    set(package "${KUBEX_DEBIAN_RUNTIME_PACKAGE}")
  else()
    set(package "${KUBEX_DEBIAN_DEV_PACKAGE}")
  endif()
  install(FILES "${KUBEX_DEBIAN_COPYRIGHT}" "${PROJECT_BINARY_DIR}/debian/changelog.Debian.gz"
    LICENSE NOTICE
    DESTINATION "${CMAKE_INSTALL_DATAROOTDIR}/doc/${package}"
    COMPONENT ${component}
  )
endforeach()

set(CPACK_PACKAGE_NAME kubex)
set(CPACK_PACKAGE_VENDOR "The kubex authors")
set(CPACK_RESOURCE_FILE_LICENSE "${PROJECT_SOURCE_DIR}/LICENSE")
set(CPACK_PACKAGE_INSTALL_DIRECTORY kubex)
set(CPACK_PACKAGING_INSTALL_PREFIX /usr)
# Where `cpack` writes when not told (-B): beside the build, never into the source tree.
set(CPACK_PACKAGE_DIRECTORY "${PROJECT_BINARY_DIR}/packages")

set(CPACK_DEB_COMPONENT_INSTALL ON)
if(BUILD_SHARED_LIBS)
  set(CPACK_COMPONENTS_ALL Runtime Development)
else()
  set(CPACK_COMPONENTS_ALL Development)
endif()

set(CPACK_DEBIAN_PACKAGE_MAINTAINER "${KUBEX_DEBIAN_MAINTAINER}")
set(CPACK_DEBIAN_PACKAGE_PRIORITY optional)
set(CPACK_DEBIAN_PACKAGE_RELEASE ${KUBEX_DEBIAN_RELEASE})
set(CPACK_DEBIAN_FILE_NAME DEB-DEFAULT)
set(kubex_debian_about
  "kubex is a Kubernetes API client library for C++20: typed models of the\n"
  "Kubernetes API, an asynchronous (Boost.Asio coroutines) and a blocking\n"
  "client, watches, reflectors and the building blocks of controllers.")
string(CONCAT kubex_debian_about ${kubex_debian_about})

# Each package's synopsis is the first line of its description. CPackDeb would put the
# project's summary before it unless the summary is CPack's default: make it so, for DEB only.
set(CPACK_PROJECT_CONFIG_FILE "${PROJECT_BINARY_DIR}/debian/CPackProjectConfig.cmake")
file(CONFIGURE OUTPUT "${CPACK_PROJECT_CONFIG_FILE}" CONTENT [=[
if(CPACK_GENERATOR STREQUAL "DEB")
  set(CPACK_PACKAGE_DESCRIPTION_SUMMARY "${CPACK_DEFAULT_PACKAGE_DESCRIPTION_SUMMARY}")
endif()
]=])

set(CPACK_DEBIAN_RUNTIME_PACKAGE_NAME "${KUBEX_DEBIAN_RUNTIME_PACKAGE}")
set(CPACK_DEBIAN_RUNTIME_PACKAGE_SECTION libs)
set(CPACK_DEBIAN_RUNTIME_DESCRIPTION
  "Kubernetes API client library for C++20 - shared libraries\n${kubex_debian_about}\n.\nThis package contains the shared libraries.")
# Boost is header-only here (Asio, Beast): no Boost library at run time.
set(CPACK_DEBIAN_RUNTIME_PACKAGE_DEPENDS
  "libc6, libgcc-s1, libstdc++6 (>= 12), libssl3 (>= 3.0.0), libnghttp2-14 (>= 1.43), libsimdjson14, libyaml-cpp0.7, zlib1g (>= 1:1.2.11)")
# The shlibs control file and the ldconfig trigger of each package holding shared libraries
# (CPack finds them with `file`). A new minor has a new soname, so ">=" suffices.
set(CPACK_DEBIAN_PACKAGE_GENERATE_SHLIBS ON)
set(CPACK_DEBIAN_PACKAGE_GENERATE_SHLIBS_POLICY ">=")
# CPack 3.25 calls ldconfig from postinst/postrm; Debian asks for the ldconfig trigger.
file(CONFIGURE OUTPUT "${PROJECT_BINARY_DIR}/debian/runtime/triggers"
  CONTENT "activate-noawait ldconfig\n")
set(CPACK_DEBIAN_RUNTIME_PACKAGE_CONTROL_EXTRA "${PROJECT_BINARY_DIR}/debian/runtime/triggers")
# Shared libraries stripped of their debug information (Debian would ship it in a -dbgsym
# package); CMake strips no static library, so libkubex-dev's keep theirs.
set(CPACK_STRIP_FILES ON)

set(CPACK_DEBIAN_DEVELOPMENT_PACKAGE_NAME "${KUBEX_DEBIAN_DEV_PACKAGE}")
set(CPACK_DEBIAN_DEVELOPMENT_PACKAGE_SECTION libdevel)
set(CPACK_DEBIAN_DEVELOPMENT_DESCRIPTION
  "Kubernetes API client library for C++20 - development files\n${kubex_debian_about}\n.\nThis package contains the headers, the CMake and pkg-config packages and\nthe libraries to link with.")
# What find_package(kubex) finds again (kubexConfig.cmake: find_dependency, pkg-config), and
# what static libraries need at link time. Boost 1.81: Debian 12's default libboost-dev is 1.74.
set(kubex_debian_dev_depends
  "libboost1.81-dev | libboost-dev (>= 1.81)"
  "libssl-dev (>= 3.0.0)"
  "libnghttp2-dev (>= 1.43)"
  "libsimdjson-dev"
  "libyaml-cpp-dev"
  "zlib1g-dev"
  "pkg-config")
if(BUILD_SHARED_LIBS)
  list(PREPEND kubex_debian_dev_depends "${KUBEX_DEBIAN_RUNTIME_PACKAGE} (= ${PROJECT_VERSION}-${KUBEX_DEBIAN_RELEASE})")
endif()
list(JOIN kubex_debian_dev_depends ", " CPACK_DEBIAN_DEVELOPMENT_PACKAGE_DEPENDS)
# kubex_crd_models() runs the installed generator with Python 3 (python3-yaml for YAML).
set(CPACK_DEBIAN_DEVELOPMENT_PACKAGE_RECOMMENDS "python3 (>= 3.9), python3-yaml")

include(CPack)
