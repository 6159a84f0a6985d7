# SPDX-License-Identifier: Apache-2.0
# kubex_crd_models(<target> MANIFEST <crd.yaml> NAMESPACE <c++::namespace> HEADER <path.hpp>)
#
# Generates typed models for the CustomResourceDefinitions in MANIFEST at build time
# (tools/codegen, Python 3 with python3-yaml) and makes <target> an INTERFACE library whose
# users include <HEADER>. The header is regenerated when the manifest or the generator changes.
#
# The same function comes with the installed package (find_package(kubex)), which carries the
# generator under share/kubex/codegen; kubexConfig.cmake points KUBEX_CODEGEN_DIR there.
find_package(Python3 3.9 COMPONENTS Interpreter)
if(NOT KUBEX_CODEGEN_DIR)
  set(KUBEX_CODEGEN_DIR "${CMAKE_CURRENT_LIST_DIR}/../tools/codegen")
endif()
set(KUBEX_CODEGEN_DIR "${KUBEX_CODEGEN_DIR}" CACHE INTERNAL "")

function(kubex_crd_models target)
  cmake_parse_arguments(ARG "" "MANIFEST;NAMESPACE;HEADER" "" ${ARGN})
  foreach(required MANIFEST NAMESPACE HEADER)
    if(NOT ARG_${required})
      message(FATAL_ERROR "kubex_crd_models(${target}): ${required} is required")
    endif()
  endforeach()
  if(NOT Python3_Interpreter_FOUND)
    message(FATAL_ERROR "kubex_crd_models(${target}): the model generator needs Python 3.9 or "
      "newer (with python3-yaml for YAML manifests), and none was found")
  endif()
  get_filename_component(manifest "${ARG_MANIFEST}" ABSOLUTE)
  set(include_dir "${CMAKE_CURRENT_BINARY_DIR}/${target}_include")
  set(header "${include_dir}/${ARG_HEADER}")
  file(GLOB generator_sources "${KUBEX_CODEGEN_DIR}/kubex_codegen/*.py")
  add_custom_command(
    OUTPUT "${header}"
    COMMAND "${Python3_EXECUTABLE}" -m kubex_codegen.crd "${manifest}"
            --namespace "${ARG_NAMESPACE}" --output "${header}"
            --k8s-version "${KUBEX_K8S_VERSION}"
    WORKING_DIRECTORY "${KUBEX_CODEGEN_DIR}"
    DEPENDS "${manifest}" ${generator_sources}
    COMMENT "Generating CRD models ${ARG_HEADER} from ${ARG_MANIFEST}"
    VERBATIM)
  add_custom_target(${target}_generate DEPENDS "${header}")
  add_library(${target} INTERFACE)
  add_dependencies(${target} ${target}_generate)
  target_include_directories(${target} INTERFACE "${include_dir}")
  target_link_libraries(${target} INTERFACE kubex::core kubex::models)
endfunction()
