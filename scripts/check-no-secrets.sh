#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# Fails if a credential appears in any of the given log files (ctest's LastTest.log holds every
# line the tests printed): the testenv kubeconfig's bearer tokens and client key, the secrets
# the suites plant (tests/planted-secrets.txt), and those the tests minted while running
# (--secrets-file: one per line, written by kubex::testing::record_secret). Names the file and
# the kind of secret, never the secret. Fails when given no log, or a list that is missing.
#   scripts/check-no-secrets.sh [--kubeconfig FILE] [--secrets-file FILE]... LOG...
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
usage() { echo "usage: $0 [--kubeconfig FILE] [--secrets-file FILE]... LOG..." >&2; exit 2; }
kubeconfig=""
secret_files=()
while [ $# -gt 0 ]; do
  case "$1" in
    --kubeconfig) [ $# -ge 2 ] || usage; kubeconfig=$2; shift 2 ;;
    --secrets-file) [ $# -ge 2 ] || usage; secret_files+=("$2"); shift 2 ;;
    --) shift; break ;;
    -*) usage ;;
    *) break ;;
  esac
done
[ $# -gt 0 ] || { echo "check-no-secrets: no log to check" >&2; usage; }

secrets=()
kinds=()
add() { [ -n "$1" ] && { secrets+=("$1"); kinds+=("$2"); }; return 0; }
if [ -n "$kubeconfig" ]; then
  [ -f "$kubeconfig" ] || { echo "check-no-secrets: $kubeconfig is missing" >&2; exit 1; }
  found=0
  while read -r token; do
    [ -n "$token" ] && { add "$token" "a testenv bearer token"; found=1; }
  done < <(sed -n 's/^ *token: *//p' "$kubeconfig")
  while read -r key; do
    [ -n "$key" ] || continue
    found=1
    # Every line of the PEM body, so that a partial leak is caught too.
    while read -r line; do
      [ ${#line} -ge 16 ] && add "$line" "the testenv client key"
    done < <(base64 -d <<<"$key" | grep -v -- '-----')
  done < <(sed -n 's/^ *client-key-data: *//p' "$kubeconfig")
  [ "$found" = 1 ] || { echo "check-no-secrets: found no credentials in $kubeconfig" >&2; exit 1; }
fi
planted=$root/tests/planted-secrets.txt
while IFS= read -r line; do
  case "$line" in '#'* | '') continue ;; esac
  add "$line" "a planted test secret"
done <"$planted"
for f in "${secret_files[@]}"; do
  [ -f "$f" ] || { echo "check-no-secrets: secrets file $f is missing" >&2; exit 1; }
  while IFS= read -r line; do
    add "$line" "a secret minted by a test"
  done <"$f"
done

bad=0
for log in "$@"; do
  [ -f "$log" ] || { echo "check-no-secrets: $log is missing" >&2; exit 1; }
  for i in "${!secrets[@]}"; do
    if grep -qF -- "${secrets[$i]}" "$log"; then
      echo "check-no-secrets: $log contains ${kinds[$i]}" >&2
      bad=1
    fi
  done
done
[ "$bad" = 0 ] && echo "check-no-secrets: none of ${#secrets[@]} secrets in $# log(s)" >&2
exit "$bad"
