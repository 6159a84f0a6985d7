#!/usr/bin/env python3
# SPDX-License-Identifier: Apache-2.0
"""Cross-checks specs/v1.35.4 (the committed documents plus the enum overlay) against what
testenv's real kube-apiserver v1.35.4 serves at /openapi/v3, using kubectl as the client.

Every definition the server serves must be in the committed spec with the same schema;
descriptions may differ only by the "Possible enum values" text the server appends.
Run under scripts/with-testenv.sh (needs KUBECONFIG).
"""

import json
import os
import subprocess
import sys

ROOT = os.path.abspath(os.path.join(os.path.dirname(__file__), "..", ".."))
sys.path.insert(0, os.path.join(ROOT, "tools", "codegen"))
from kubex_codegen.schema import load_schemas  # noqa: E402


def raw(path):
    return json.loads(subprocess.run(["kubectl", "get", "--raw", path], check=True,
                                     capture_output=True, text=True).stdout)


def normalise(o):
    if isinstance(o, dict):
        return {k: normalise(v) for k, v in o.items() if k != "description"}
    if isinstance(o, list):
        return [normalise(x) for x in o]
    return o


def main():
    if not os.environ.get("KUBECONFIG"):
        sys.exit("KUBECONFIG unset: run under scripts/with-testenv.sh")
    committed = load_schemas(os.path.join(ROOT, "specs", "v1.35.4"))["schemas"]
    index = raw("/openapi/v3")["paths"]
    # Other integration tests install CustomResourceDefinitions in the same control plane; their
    # group-versions are not part of Kubernetes' own spec.
    crd_groups = {c["spec"]["group"] for c in
                  raw("/apis/apiextensions.k8s.io/v1/customresourcedefinitions").get("items") or []}
    live = {}
    for path, entry in sorted(index.items()):
        if not (path == "api/v1" or (path.startswith("apis/") and path.count("/") == 2)):
            continue
        if path.startswith("apis/") and path.split("/")[1] in crd_groups:
            continue
        doc = raw("/" + entry["serverRelativeURL"].lstrip("/"))
        live.update(doc.get("components", {}).get("schemas", {}))
    problems = []
    enums = 0
    for name, schema in sorted(live.items()):
        if name not in committed:
            problems.append(f"{name}: served but not in specs/v1.35.4")
            continue
        if normalise(schema) != normalise(committed[name]):
            problems.append(f"{name}: schema differs from specs/v1.35.4 (+ enums.json)")
        enums += json.dumps(schema).count('"enum"')
    for p in problems[:20]:
        print("FAIL:", p, file=sys.stderr)
    if problems:
        sys.exit(f"{len(problems)} definitions differ")
    if enums == 0:
        sys.exit("the server served no enums: the check would prove nothing")
    print(f"{len(live)} served definitions match specs/v1.35.4, including {enums} enum fields")


if __name__ == "__main__":
    main()
