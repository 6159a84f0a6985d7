#!/usr/bin/env bash
# Fails if a credential of the testenv kubeconfig (bearer tokens, client key) or one of the test
# suite's planted secrets appears in any of the given log files (ctest's LastTest.log holds every
# line the tests printed). Names the file and the kind of secret, never the secret.
#   scripts/check-no-secrets.sh [--kubeconfig FILE] LOG...
set -euo pipefail
kubeconfig=/dev/null
if [ "${1:-}" = "--kubeconfig" ]; then
  kubeconfig=$2
  shift 2
fi
secrets=()
kinds=()
while read -r token; do
  [ -n "$token" ] && { secrets+=("$token"); kinds+=("a testenv bearer token"); }
done < <(sed -n 's/^ *token: *//p' "$kubeconfig")
while read -r key; do
  [ -n "$key" ] || continue
  # Every line of the PEM body, so that a partial leak is caught too.
  while read -r line; do
    [ ${#line} -ge 16 ] && { secrets+=("$line"); kinds+=("the testenv client key"); }
  done < <(base64 -d <<<"$key" | grep -v -- '-----')
done < <(sed -n 's/^ *client-key-data: *//p' "$kubeconfig")
# Planted by tests that assert messages never repeat them (tests/client, tests/integration).
for planted in s3cr3t-T0KEN-do-not-print wrong-pass stale-refresh-token; do
  secrets+=("$planted")
  kinds+=("a planted test secret")
done
if [ "$kubeconfig" != /dev/null ] && [ ${#secrets[@]} -le 3 ]; then
  echo "check-no-secrets: found no credentials in $kubeconfig" >&2
  exit 1
fi
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
[ "$bad" = 0 ] && echo "check-no-secrets: no credential in $# log(s)" >&2
exit "$bad"
