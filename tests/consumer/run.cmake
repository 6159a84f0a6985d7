# SPDX-License-Identifier: Apache-2.0
# Installs the kubex build tree into a scratch prefix, then configures, builds and runs
# tests/consumer against it. Invoked by ctest with -D arguments; KUBEX_CONSUMER_RUN says what:
#   offline  (test install_consumer) builds everything, every installed header in a file of its
#            own included, and runs the programs that need no server.
#   testenv  (test install_consumer_testenv) builds consumer_testenv only and runs it against
#            the apiserver of $ENV{KUBEX_TESTENV_KUBECONFIG} (scripts/with-testenv.sh).

foreach(var KUBEX_BUILD_DIR KUBEX_WORK_DIR KUBEX_CONSUMER_SOURCE KUBEX_GENERATOR KUBEX_CXX_COMPILER)
  if(NOT DEFINED ${var} OR "${${var}}" STREQUAL "")
    message(FATAL_ERROR "run.cmake: ${var} is not set")
  endif()
endforeach()

set(prefix "${KUBEX_WORK_DIR}/prefix")
set(build "${KUBEX_WORK_DIR}/build")
file(REMOVE_RECURSE "${KUBEX_WORK_DIR}")
if(NOT DEFINED KUBEX_CONSUMER_RUN)
  set(KUBEX_CONSUMER_RUN offline)
endif()
if(KUBEX_CONSUMER_RUN STREQUAL "testenv")
  set(kubeconfig "$ENV{KUBEX_TESTENV_KUBECONFIG}")
  if(kubeconfig STREQUAL "")
    message(FATAL_ERROR "KUBEX_TESTENV_KUBECONFIG is not set: run the test through "
      "scripts/with-testenv.sh")
  endif()
elseif(NOT KUBEX_CONSUMER_RUN STREQUAL "offline")
  message(FATAL_ERROR "run.cmake: KUBEX_CONSUMER_RUN must be offline or testenv, not "
    "\"${KUBEX_CONSUMER_RUN}\"")
endif()

# Runs a command, fails on a non-zero status, and says how long it took.
function(run)
  string(TIMESTAMP started "%s")
  execute_process(COMMAND ${ARGN} RESULT_VARIABLE result)
  string(TIMESTAMP ended "%s")
  math(EXPR seconds "${ended} - ${started}")
  list(JOIN ARGN " " shown)
  if(NOT result EQUAL 0)
    message(FATAL_ERROR "command failed (${result}) after ${seconds} s: ${shown}")
  endif()
  message(STATUS "${seconds} s: ${shown}")
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
# The headers one by one: once, in the offline run of a build without sanitizers (compiling a
# header under ASan checks nothing more, and costs twice the time).
if(KUBEX_CONSUMER_RUN STREQUAL "testenv" OR KUBEX_CXX_FLAGS MATCHES "-fsanitize")
  list(APPEND configure_args -DKUBEX_CONSUMER_HEADERS=OFF)
endif()
if(KUBEX_CXX_COMPILER_LAUNCHER)
  list(APPEND configure_args "-DCMAKE_CXX_COMPILER_LAUNCHER=${KUBEX_CXX_COMPILER_LAUNCHER}")
endif()
run("${CMAKE_COMMAND}" ${configure_args})
if(KUBEX_CONSUMER_RUN STREQUAL "testenv")
  run("${CMAKE_COMMAND}" --build "${build}" --target consumer_testenv)
  run("${build}/consumer_testenv" "${kubeconfig}")
else()
  run("${CMAKE_COMMAND}" --build "${build}")
  run("${build}/consumer")
  run("${build}/consumer_scripted")
  run("${build}/consumer_crd")
endif()
