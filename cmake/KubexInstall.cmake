# SPDX-License-Identifier: Apache-2.0
# Guards of the installed package (issue 38).

# kubex_check_header_sets(<target>...): fails the configure if a header under a target's
# HEADERS base directories (its include/) is not in that file set, which `cmake --install`
# copies. Every header there is public: the build tree's users see all of include/, so one left
# out of the set compiles here and is "No such file or directory" in an installed prefix (three
# were). The lists stay written out rather than globbed into the set: they are the reviewed API
# surface, and the models' lists are generated (models/v1_*/CMakeLists.txt, not to be edited).
# The glob is CONFIGURE_DEPENDS, so a header added without its line fails the next build.
function(kubex_check_header_sets)
  set(missing "")
  foreach(target IN LISTS ARGN)
    get_target_property(sets ${target} INTERFACE_HEADER_SETS)
    if(NOT "HEADERS" IN_LIST sets)
      continue()
    endif()
    get_target_property(source_dir ${target} SOURCE_DIR)
    get_target_property(dirs ${target} HEADER_DIRS)
    get_target_property(listed_raw ${target} HEADER_SET)
    set(listed "")
    foreach(file IN LISTS listed_raw)
      cmake_path(ABSOLUTE_PATH file BASE_DIRECTORY "${source_dir}" NORMALIZE)
      list(APPEND listed "${file}")
    endforeach()
    foreach(dir IN LISTS dirs)
      cmake_path(ABSOLUTE_PATH dir BASE_DIRECTORY "${source_dir}" NORMALIZE)
      file(GLOB_RECURSE found CONFIGURE_DEPENDS "${dir}/*.hpp" "${dir}/*.h")
      foreach(file IN LISTS found)
        if(NOT file IN_LIST listed)
          file(RELATIVE_PATH shown "${PROJECT_SOURCE_DIR}" "${file}")
          file(RELATIVE_PATH where "${PROJECT_SOURCE_DIR}" "${source_dir}/CMakeLists.txt")
          string(APPEND missing "\n  ${shown}: add it to ${target}'s FILE_SET HEADERS in ${where}")
        endif()
      endforeach()
    endforeach()
  endforeach()
  if(missing)
    message(FATAL_ERROR "public headers missing from the installed file sets (cmake --install "
      "would leave them out):${missing}")
  endif()
endfunction()

# kubex_install_requires_built(<target>...): makes `cmake --install` stop first, with the
# command to run, when a target it installs was not built in this tree (a tree built for one
# target only, e.g. `--target kubex_bench_suite`), instead of failing halfway with "file INSTALL
# cannot find". Call before install(TARGETS): a directory's install rules run in order.
function(kubex_install_requires_built)
  set(code "set(kubex_not_built \"\")\n")
  foreach(target IN LISTS ARGN)
    get_target_property(type ${target} TYPE)
    if(type STREQUAL "INTERFACE_LIBRARY")
      continue()
    endif()
    string(APPEND code "if(NOT EXISTS \"$<TARGET_FILE:${target}>\")\n"
      "  list(APPEND kubex_not_built ${target})\n"
      "endif()\n")
  endforeach()
  string(APPEND code "if(kubex_not_built)\n"
    "  string(REPLACE \";\" \" \" kubex_not_built \"\${kubex_not_built}\")\n"
    "  message(FATAL_ERROR \"kubex: cannot install from ${PROJECT_BINARY_DIR}: not built there: "
    "\${kubex_not_built}. Build the libraries first:\\n"
    "  cmake --build ${PROJECT_BINARY_DIR} --target kubex_libraries\")\n"
    "endif()\n")
  install(CODE "${code}")
endfunction()
