#!/usr/bin/env python3
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
from kubex_codegen import goenums  # noqa: E402

# The newest patch release of each minor the module proxy served on 2026-11-30.
VERSIONS = ["v1.32.13", "v1.33.13", "v1.34.4", "v1.35.4", "v1.36.3", "v1.37.2"]
ROOT = os.path.abspath(os.path.join(os.path.dirname(__file__), "..", ".."))
SPECS = os.path.join(ROOT, "specs")


def module(version: str) -> dict:
    env = dict(os.environ, GOFLAGS="-mod=mod", GOTOOLCHAIN="local")
    out = subprocess.run(["go", "mod", "download", "-json", f"k8s.io/kubernetes@{version}"],
                         check=True, capture_output=True, text=True, env=env, cwd=SPECS).stdout
    info = json.loads(out)
    if "Error" in info:
        raise SystemExit(f"go mod download k8s.io/kubernetes@{version}: {info['Error']}")
    return info


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

    out = os.path.join(SPECS, version)
    os.makedirs(out, exist_ok=True)
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
    }
    with open(os.path.join(out, "PROVENANCE.json"), "w", encoding="utf-8") as f:
        json.dump(provenance, f, indent=1, sort_keys=True)
        f.write("\n")
    print(f"{version}: {len(files)} documents, {sum(len(v) for v in enums.values())} enum fields", file=sys.stderr)


def main() -> None:
    os.makedirs(SPECS, exist_ok=True)
    for v in sys.argv[1:] or VERSIONS:
        update(v)


if __name__ == "__main__":
    main()
