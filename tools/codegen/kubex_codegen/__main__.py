# SPDX-License-Identifier: Apache-2.0
"""python3 -m kubex_codegen [--check] [VERSION ...]: (re)generates models/<vX_Y>/ from specs/."""

import argparse
import difflib
import os
import sys

from .emit import Emitter, vns, write_tree
from .protomap import load_messages
from .schema import Model

ROOT = os.path.abspath(os.path.join(os.path.dirname(__file__), "..", "..", ".."))


def main() -> int:
    ap = argparse.ArgumentParser(prog="kubex_codegen")
    ap.add_argument("versions", nargs="*", help="Kubernetes versions as in specs/ (default: all)")
    ap.add_argument("--check", action="store_true", help="fail if the committed models differ")
    args = ap.parse_args()
    specs = os.path.join(ROOT, "specs")
    versions = args.versions or sorted(d for d in os.listdir(specs) if d.startswith("v1."))
    stale = []
    for v in versions:
        spec_dir = os.path.join(specs, v)
        files = Emitter(Model(spec_dir), v, load_messages(spec_dir)).render()
        out = os.path.join(ROOT, "models", vns(v))
        if args.check:
            for rel, text in sorted(files.items()):
                path = os.path.join(out, rel)
                old = open(path, encoding="utf-8").read() if os.path.exists(path) else ""
                if old != text:
                    stale.append(path)
                    sys.stderr.writelines(list(difflib.unified_diff(
                        old.splitlines(True), text.splitlines(True), path, path + " (generated)"))[:40])
        else:
            write_tree(files, out)
            print(f"{v}: {len(files)} files in models/{vns(v)}", file=sys.stderr)
    if stale:
        print(f"codegen: {len(stale)} generated files are stale; run tools/codegen/generate", file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
