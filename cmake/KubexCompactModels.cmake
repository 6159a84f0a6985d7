# kubex_compact_models(): the lean-decode experiment's models, a static library target
# `kubex_compact_models`: core/v1 and meta/v1 of the 1.35 models (JSON and protobuf codecs)
# rewritten to hold kubex's compact containers, in namespace kubex::k8s::v1_35c, generated at
# build time by benchmarks/models/compact_models.py (benchmarks/results/lean-decode.md).
# kubex_codec_bench measures them; tests/models/compact_layout_test.cpp checks they decode and
# encode as the shipped models do. Defined once, by whichever directory asks first.
function(kubex_compact_models)
  if(TARGET kubex_compact_models)
    return()
  endif()
  find_package(Python3 REQUIRED COMPONENTS Interpreter)
  set(dir "${PROJECT_BINARY_DIR}/compact-models")
  set(models "${PROJECT_SOURCE_DIR}/models/v1_35")
  set(sources "${dir}/src/core_v1.cpp" "${dir}/src/core_v1.pb.cpp" "${dir}/src/meta_v1.cpp"
    "${dir}/src/meta_v1.pb.cpp")
  add_custom_command(
    OUTPUT ${sources} "${dir}/include/kubex/k8s/v1_35c/core/v1.hpp"
      "${dir}/include/kubex/k8s/v1_35c/meta/v1.hpp"
    COMMAND Python3::Interpreter "${PROJECT_SOURCE_DIR}/benchmarks/models/compact_models.py"
      "${models}" "${dir}"
    DEPENDS "${PROJECT_SOURCE_DIR}/benchmarks/models/compact_models.py"
      "${models}/src/core_v1.cpp" "${models}/src/core_v1.pb.cpp" "${models}/src/meta_v1.cpp"
      "${models}/src/meta_v1.pb.cpp" "${models}/include/kubex/k8s/v1_35/core/v1.hpp"
      "${models}/include/kubex/k8s/v1_35/meta/v1.hpp"
    COMMENT "compact-layout models for the lean-decode experiment")
  add_library(kubex_compact_models STATIC ${sources})
  target_include_directories(kubex_compact_models PUBLIC "${dir}/include")
  target_link_libraries(kubex_compact_models PUBLIC kubex::core)
endfunction()
