# Installs the kubex build tree into a scratch prefix, then configures, builds and runs
# tests/consumer against it. Invoked by ctest (test "install_consumer") with -D arguments.

foreach(var KUBEX_BUILD_DIR KUBEX_WORK_DIR KUBEX_CONSUMER_SOURCE KUBEX_GENERATOR KUBEX_CXX_COMPILER)
  if(NOT DEFINED ${var} OR "${${var}}" STREQUAL "")
    message(FATAL_ERROR "run.cmake: ${var} is not set")
  endif()
endforeach()

set(prefix "${KUBEX_WORK_DIR}/prefix")
set(build "${KUBEX_WORK_DIR}/build")
file(REMOVE_RECURSE "${KUBEX_WORK_DIR}")

function(run)
  execute_process(COMMAND ${ARGN} RESULT_VARIABLE result)
  if(NOT result EQUAL 0)
    message(FATAL_ERROR "command failed (${result}): ${ARGN}")
  endif()
endfunction()

set(install_args --install "${KUBEX_BUILD_DIR}" --prefix "${prefix}")
if(KUBEX_CONFIG)
  list(APPEND install_args --config "${KUBEX_CONFIG}")
endif()
run("${CMAKE_COMMAND}" ${install_args})

set(configure_args
  -S "${KUBEX_CONSUMER_SOURCE}" -B "${build}" -G "${KUBEX_GENERATOR}"
  "-DCMAKE_PREFIX_PATH=${prefix}"
  "-DCMAKE_CXX_COMPILER=${KUBEX_CXX_COMPILER}"
  "-DCMAKE_CXX_FLAGS=${KUBEX_CXX_FLAGS}"
  "-DCMAKE_EXE_LINKER_FLAGS=${KUBEX_CXX_FLAGS}"
)
if(KUBEX_CONFIG)
  list(APPEND configure_args "-DCMAKE_BUILD_TYPE=${KUBEX_CONFIG}")
endif()
if(KUBEX_CXX_COMPILER_LAUNCHER)
  list(APPEND configure_args "-DCMAKE_CXX_COMPILER_LAUNCHER=${KUBEX_CXX_COMPILER_LAUNCHER}")
endif()
run("${CMAKE_COMMAND}" ${configure_args})
run("${CMAKE_COMMAND}" --build "${build}")
run("${build}/consumer")
run("${build}/consumer_scripted")
