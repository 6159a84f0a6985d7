#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# Runs a command against a fresh testenv (a real control plane on loopback) and stops the
# testenv afterwards, whatever happens:  scripts/with-testenv.sh [testenv up flags --] CMD...
#
# The command sees KUBECONFIG and KUBEX_TESTENV_KUBECONFIG (the admin/admin-cert/user
# kubeconfig), KUBEX_TESTENV_DIR (run directory with env.json and logs/) and
# KUBEX_TESTENV_BIN (the testenv binary, for 'testenv seed' and 'testenv ctl'), and finds
# first on PATH the kubectl built with testenv, of the control plane's version.
# The exit status is the command's; a testenv that fails to start exits non-zero.
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)

up_flags=()
if [[ " $* " == *" -- "* ]]; then
  while [ "$1" != "--" ]; do up_flags+=("$1"); shift; done
  shift
fi
[ $# -gt 0 ] || { echo "usage: $0 [testenv up flags --] command..." >&2; exit 2; }

bin=$("$root/scripts/build-testenv.sh")
work=$(mktemp -d "${TMPDIR:-/tmp}/kubex-testenv.XXXXXX")
fifo="$work/stdin"
mkfifo "$fifo"

# testenv stops when its stdin closes: we hold the write end open on fd 9 and close it at
# exit, so even a killed runner leaves no control plane behind.
"$bin" up --exit-on-stdin-close=true "${up_flags[@]}" <"$fifo" >"$work/stdout" 2>"$work/stderr" &
pid=$!
exec 9>"$fifo"

stop() {
  local rc=$?
  exec 9>&-
  for _ in $(seq 1 600); do kill -0 "$pid" 2>/dev/null || break; sleep 0.1; done
  if kill -0 "$pid" 2>/dev/null; then
    echo "with-testenv: testenv did not stop in 60s; killing it" >&2
    kill -TERM "$pid" 2>/dev/null || true
    sleep 5
    kill -KILL "$pid" 2>/dev/null || true
  fi
  wait "$pid" 2>/dev/null || true
  if [ "$rc" -ne 0 ] && [ -s "$work/stderr" ]; then
    echo "with-testenv: testenv stderr (last lines):" >&2
    tail -n 20 "$work/stderr" >&2
  fi
  rm -rf "$work"
  exit "$rc"
}
trap stop EXIT
trap 'exit 130' INT
trap 'exit 143' TERM

start=$(date +%s%N)
for _ in $(seq 1 1800); do
  if grep -q '^TESTENV READY' "$work/stdout"; then break; fi
  if ! kill -0 "$pid" 2>/dev/null; then
    echo "with-testenv: testenv exited before it was ready" >&2
    exit 1
  fi
  sleep 0.1
done
line=$(grep '^TESTENV READY' "$work/stdout" || true)
[ -n "$line" ] || { echo "with-testenv: testenv not ready after 180s" >&2; exit 1; }
kubeconfig=$(sed -n 's/.* kubeconfig=\([^ ]*\).*/\1/p' <<<"$line")
dir=$(sed -n 's/.* dir=\([^ ]*\).*/\1/p' <<<"$line")
echo "with-testenv: control plane ready in $(( ($(date +%s%N) - start) / 1000000 )) ms ($dir)" >&2

export KUBECONFIG="$kubeconfig" KUBEX_TESTENV_KUBECONFIG="$kubeconfig" KUBEX_TESTENV_DIR="$dir" KUBEX_TESTENV_BIN="$bin"
# kubectl of the control plane's version (a symlink to the testenv binary), whatever the
# machine has: every test, example and benchmark that runs kubectl gets this one.
bindir=$(dirname "$bin")
export PATH="$bindir:$PATH"
"$@"
