#!/usr/bin/env python3
# SPDX-License-Identifier: Apache-2.0
"""Refreshes specs/ from the k8s.io/kubernetes Go modules: for every release kubex covers,
the OpenAPI v3 documents and the v2 swagger.json of api/openapi-spec, the field enums of
pkg/generated/openapi (see kubex_codegen/goenums.py), and a PROVENANCE.json with the module
checksum and a sha256 of every file. The archives are byte-reproducible (sorted, no times,
no owners), so re-running on the same versions changes nothing.

Usage: tools/codegen/update_specs.py [VERSION ...]   (default: every version in VERSIONS)
Needs Go (go mod download); nothing else leaves the machine's module cache.
"""

import hashlib
import io
import json
import lzma
import os
import subprocess
import sys
import tarfile

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from kubex_codegen import goenums, protoschema  # noqa: E402

# The newest patch release of each minor the module proxy served on 2026-11-30.
VERSIONS = ["v1.32.13", "v1.33.13", "v1.34.4", "v1.35.4", "v1.36.3", "v1.37.2"]
ROOT = os.path.abspath(os.path.join(os.path.dirname(__file__), "..", ".."))
SPECS = os.path.join(ROOT, "specs")


def module(version: str, path: str = "k8s.io/kubernetes") -> dict:
    env = dict(os.environ, GOFLAGS="-mod=mod", GOTOOLCHAIN="local")
    out = subprocess.run(["go", "mod", "download", "-json", f"{path}@{version}"],
                         check=True, capture_output=True, text=True, env=env, cwd=SPECS).stdout
    info = json.loads(out)
    if "Error" in info:
        raise SystemExit(f"go mod download {path}@{version}: {info['Error']}")
    return info


# The modules whose generated.proto files define the built-in kinds' messages (staging modules:
# the k8s.io/kubernetes module leaves them out), at v0.X.Y for Kubernetes v1.X.Y.
PROTO_MODULES = ["k8s.io/api", "k8s.io/apimachinery", "k8s.io/apiextensions-apiserver",
                 "k8s.io/kube-aggregator"]


def proto_messages(version: str) -> tuple:
    """Every message of the proto modules at the staging version of `version`, and the
    provenance of each module (checksum, sha256 of each file read)."""
    staging = "v0." + version.split(".", 1)[1]
    messages, provenance = {}, {}
    for path in PROTO_MODULES:
        info = module(staging, path)
        hashes = {}
        for dirpath, dirnames, filenames in os.walk(info["Dir"]):
            dirnames.sort()
            rel_dir = os.path.relpath(dirpath, info["Dir"])
            # testapigroup is apimachinery's own test API, not a Kubernetes group.
            if "generated.proto" not in filenames or "testapigroup" in rel_dir:
                continue
            with open(os.path.join(dirpath, "generated.proto"), "rb") as f:
                data = f.read()
            rel = os.path.join(rel_dir, "generated.proto")
            hashes[rel] = hashlib.sha256(data).hexdigest()
            go_fields = {}
            for go_file in sorted(filenames):
                if go_file.endswith(".go") and not go_file.endswith("_test.go"):
                    with open(os.path.join(dirpath, go_file), "rb") as f:
                        go_data = f.read()
                    found = protoschema.extract_go_fields(go_data.decode("utf-8"))
                    if found:
                        hashes[os.path.join(rel_dir, go_file)] = hashlib.sha256(go_data).hexdigest()
                        go_fields.update(found)
            for name, fields in protoschema.extract(data.decode("utf-8"), f"{path}/{rel}").items():
                if name in messages:
                    raise SystemExit(f"{path}/{rel}: message {name} is defined twice")
                # How JSON treats each field's zero value, from the Go struct's tags ("?" when
                # the Go type has no such field: presence is then what the wire says).
                flags = go_fields.get(name.rsplit(".", 1)[1], {})
                messages[name] = [f + [flags.get(f[1], "?")] for f in fields]
        provenance[f"{path}@{staging}"] = {"moduleSum": info["Sum"], "sha256": hashes}
    return messages, provenance


def deterministic_tar(files: dict) -> bytes:
    buf = io.BytesIO()
    with tarfile.open(fileobj=buf, mode="w", format=tarfile.PAX_FORMAT) as tar:
        for name in sorted(files):
            data = files[name]
            ti = tarfile.TarInfo(name)
            ti.size, ti.mtime, ti.mode = len(data), 0, 0o644
            ti.uid = ti.gid = 0
            ti.uname = ti.gname = ""
            tar.addfile(ti, io.BytesIO(data))
    return lzma.compress(buf.getvalue(), preset=9 | lzma.PRESET_EXTREME)


def update(version: str) -> None:
    info = module(version)
    src = os.path.join(info["Dir"], "api", "openapi-spec")
    files = {}
    for name in sorted(os.listdir(os.path.join(src, "v3"))):
        if name.endswith(".json"):
            with open(os.path.join(src, "v3", name), "rb") as f:
                files["v3/" + name] = f.read()
    with open(os.path.join(src, "swagger.json"), "rb") as f:
        files["swagger.json"] = f.read()
    go_file = os.path.join(info["Dir"], "pkg", "generated", "openapi", "zz_generated.openapi.go")
    with open(go_file, encoding="utf-8") as f:
        enums = goenums.extract(f.read())

    messages, proto_provenance = proto_messages(version)

    out = os.path.join(SPECS, version)
    os.makedirs(out, exist_ok=True)
    # One message per line before compression: the archive stays byte-reproducible.
    lines = [json.dumps({name: messages[name]}, separators=(",", ":")) for name in sorted(messages)]
    with open(os.path.join(out, "proto.json.xz"), "wb") as f:
        f.write(lzma.compress(("\n".join(lines) + "\n").encode(), preset=9 | lzma.PRESET_EXTREME))
    with open(os.path.join(out, "openapi.tar.xz"), "wb") as f:
        f.write(deterministic_tar(files))
    with open(os.path.join(out, "enums.json"), "w", encoding="utf-8") as f:
        json.dump(enums, f, indent=1, sort_keys=True)
        f.write("\n")
    provenance = {
        "kubernetes": version,
        "module": f"k8s.io/kubernetes@{version}",
        "moduleSum": info["Sum"],
        "obtainedWith": f"go mod download -json k8s.io/kubernetes@{version}",
        "openapi.tar.xz": {"from": "api/openapi-spec/{v3/*.json,swagger.json}",
                           "sha256": {n: hashlib.sha256(d).hexdigest() for n, d in sorted(files.items())}},
        "enums.json": {"from": "pkg/generated/openapi/zz_generated.openapi.go",
                       "sha256OfSource": hashlib.sha256(open(go_file, "rb").read()).hexdigest()},
        "proto.json.xz": {"from": "generated.proto of the modules below (one JSON object per line, "
                                  "{message: [[field, number, label, type, go], ...]}; go: how "
                                  "JSON treats the Go field's zero value: p pointer, o omitted, "
                                  "'' written, ? not found)",
                          "modules": proto_provenance},
    }
    with open(os.path.join(out, "PROVENANCE.json"), "w", encoding="utf-8") as f:
        json.dump(provenance, f, indent=1, sort_keys=True)
        f.write("\n")
    print(f"{version}: {len(files)} documents, {sum(len(v) for v in enums.values())} enum fields, "
          f"{len(messages)} proto messages", file=sys.stderr)


def main() -> None:
    os.makedirs(SPECS, exist_ok=True)
    for v in sys.argv[1:] or VERSIONS:
        update(v)


if __name__ == "__main__":
    main()
