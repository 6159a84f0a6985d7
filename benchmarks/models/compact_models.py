#!/usr/bin/env python3
"""An experiment, not models kubex ships: core/v1 and meta/v1 of the generated 1.35 models,
rewritten to hold kubex's compact containers (kubex::String, kubex::Vector, kubex::Map, whose
decoded memory comes from one arena per object) in place of std::string, std::vector and
std::map, in namespace kubex::k8s::v1_35c. kubex_codec_bench decodes the same fixtures into
both, so the rows compare the layouts on the same code (benchmarks/results/lean-decode.md).

    compact_models.py MODELS_DIR OUT_DIR      e.g. models/v1_35 build/bench/compact-models
"""

import os
import re
import sys

GROUPS = [("core", "core_v1"), ("meta", "meta_v1")]  # (folder, unit)
UNITS = ["core_v1", "core_v1.pb", "meta_v1", "meta_v1.pb"]
CONTAINER_INCLUDES = (
    "#include <kubex/core/map.hpp>\n#include <kubex/core/string.hpp>\n"
    "#include <kubex/core/vector.hpp>\n"
)


def rename(text: str) -> str:
    return text.replace("v1_35::", "v1_35c::").replace("k8s::v1_35 ", "k8s::v1_35c ") \
        .replace("k8s::v1_35\n", "k8s::v1_35c\n").replace("kubex/k8s/v1_35/", "kubex/k8s/v1_35c/")


def header(text: str) -> str:
    text = text.replace("std::map<std::string, ", "::kubex::Map<::kubex::String, ")
    text = text.replace("std::vector<", "::kubex::Vector<")
    text = re.sub(r"std::string(?=[ >{,])", "::kubex::String", text)
    return text.replace("#include <kubex/core/box.hpp>\n",
                        "#include <kubex/core/box.hpp>\n" + CONTAINER_INCLUDES, 1)


def source(text: str) -> str:
    # Boxed objects too come from the decode's arena (box_memory.hpp).
    text = re.sub(r"\{ return new (\w+)\(\); \}", r"{ return ::kubex::box_new<\1>(); }", text)
    text = re.sub(r"\{ return new (\w+)\(from\); \}", r"{ return ::kubex::box_copy(from); }", text)
    text = text.replace("noexcept { delete p; }", "noexcept { ::kubex::box_delete(p); }")
    text = text.replace("#include <kubex/core/json.hpp>\n",
                        "#include <kubex/core/box_memory.hpp>\n#include <kubex/core/json.hpp>\n", 1)
    text = text.replace("std::vector<std::string>", "::kubex::Vector<::kubex::String>")
    text = text.replace("#include <kubex/core/protobuf_read.hpp>\n",
                        "#include <kubex/core/protobuf_read.hpp>\n"
                        "#include <kubex/core/protobuf_containers.hpp>\n", 1)
    return text.replace("#include <kubex/core/json_types.hpp>\n",
                        "#include <kubex/core/json_types.hpp>\n"
                        "#include <kubex/core/json_containers.hpp>\n", 1)


def write(path: str, text: str) -> None:
    os.makedirs(os.path.dirname(path), exist_ok=True)
    old = open(path, encoding="utf-8").read() if os.path.exists(path) else None
    if old != text:
        with open(path, "w", encoding="utf-8") as f:
            f.write(text)


def main() -> int:
    if len(sys.argv) != 3:
        print(__doc__, file=sys.stderr)
        return 2
    models, out = sys.argv[1], sys.argv[2]
    for group, _ in GROUPS:
        hpp = os.path.join(models, "include", "kubex", "k8s", "v1_35", group, "v1.hpp")
        write(os.path.join(out, "include", "kubex", "k8s", "v1_35c", group, "v1.hpp"),
              header(rename(open(hpp, encoding="utf-8").read())))
    for unit in UNITS:
        cpp = os.path.join(models, "src", unit + ".cpp")
        write(os.path.join(out, "src", unit + ".cpp"), source(rename(open(cpp, encoding="utf-8").read())))
    return 0


if __name__ == "__main__":
    sys.exit(main())
