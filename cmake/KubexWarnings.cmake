# SPDX-License-Identifier: Apache-2.0
# Warning flags for kubex's own targets. They are PRIVATE, so they never reach consumers.
set(KUBEX_WARNING_FLAGS
  -Wall
  -Wextra
  -Wpedantic
  -Wshadow
  -Wconversion
  -Wnon-virtual-dtor
  -Wold-style-cast
  -Woverloaded-virtual
  -Wcast-qual
)
if(KUBEX_WERROR)
  list(APPEND KUBEX_WARNING_FLAGS -Werror)
endif()

# kubex_target_warnings(<target>...): apply the project warning set to each target.
function(kubex_target_warnings)
  foreach(target IN LISTS ARGN)
    target_compile_options(${target} PRIVATE ${KUBEX_WARNING_FLAGS})
  endforeach()
endfunction()
