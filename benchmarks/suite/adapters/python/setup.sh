#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# Installs the Python peers of the benchmark suite: one venv per library under
# $KUBEX_BENCH_CACHE/python/<name>-venv (default cache ~/.cache/kubex-bench), each from its
# pinned requirements-<name>.txt in this folder. Idempotent and quiet when done: a venv is
# (re)built only when its stamp (the requirements file's hash and the interpreter) differs.
# Nothing is written into the repository. KUBEX_BENCH_PYTHON picks the interpreter (python3).
set -euo pipefail

here=$(cd "$(dirname "$0")" && pwd)
cache=${KUBEX_BENCH_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/kubex-bench}
root="$cache/python"
python=${KUBEX_BENCH_PYTHON:-python3}

fail() { echo "python peers setup: $*" >&2; exit 1; }

command -v "$python" >/dev/null 2>&1 || fail "'$python' not found (Python >= 3.11 is needed)"
# One interpreter start (pyenv shims are slow): its version and prefix, or why it won't do.
interpreter=$("$python" - <<'PY'
import sys
if sys.version_info < (3, 11):
    print("old", sys.version.split()[0])
else:
    try:
        import ensurepip, venv  # noqa: F401  (Debian ships them in python3-venv)
        print(sys.version.split()[0], sys.base_prefix)
    except ImportError:
        print("noensurepip")
PY
) || fail "'$python' does not run"
case "$interpreter" in
  old*) fail "Python >= 3.11 is needed (kubex requires it); '$python' is ${interpreter#old }" ;;
  noensurepip) fail "'$python -m venv' cannot install pip here (no ensurepip): install the" \
      "Debian package python3-venv (apt-get install python3-venv), or point" \
      "KUBEX_BENCH_PYTHON at a Python that has ensurepip" ;;
esac

mkdir -p "$root"

for name in kubex k8s-asyncio k8s-python; do
  req="$here/requirements-$name.txt"
  venv="$root/$name-venv"
  stamp="$venv/.kubex-bench-stamp"
  want="$(sha256sum "$req" | cut -d' ' -f1) $interpreter"
  if [ -f "$stamp" ] && [ "$(cat "$stamp")" = "$want" ] && "$venv/bin/python" -c '' 2>/dev/null; then
    continue
  fi
  echo "python peers setup: building $venv from $(basename "$req")" >&2
  rm -rf -- "$venv"
  "$python" -m venv "$venv" ||
    fail "'$python -m venv' failed (on Debian: install the package python3-venv)"
  "$venv/bin/python" -m pip install --quiet --disable-pip-version-check --no-input \
    --no-cache-dir -r "$req" || { rm -rf -- "$venv"; fail "pip install -r $req failed"; }
  echo "$want" >"$stamp"
done
