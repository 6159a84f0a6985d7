#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# scripts/check-no-secrets.sh on logs made here: it must fail on each kind of secret (a
# kubeconfig token, a line of its client key, a planted secret, a minted one), on no log and on
# a missing list, pass on a clean log, and never print the secret it found.
set -euo pipefail
check=${1:?usage: $0 PATH/TO/check-no-secrets.sh}
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
fail() { echo "FAIL: $*" >&2; exit 1; }

key_line=MIIEvQIBADANBgkqhkiG9w0BAQEFAASCBKcwggSjAgEAAoIBAQC7
key=$(printf -- '-----BEGIN PRIVATE KEY-----\n%s\n-----END PRIVATE KEY-----\n' "$key_line" | base64 -w0)
cat >"$tmp/kubeconfig" <<YAML
users:
- name: admin
  user:
    token: kubeconfig-token-7d1f0c
- name: cert
  user:
    client-key-data: $key
YAML
echo "minted-token-93ab71" >"$tmp/minted"
echo "an ordinary line" >"$tmp/clean.log"

run() { "$check" --kubeconfig "$tmp/kubeconfig" --secrets-file "$tmp/minted" "$@" 2>"$tmp/err"; }
run "$tmp/clean.log" || fail "a clean log failed: $(cat "$tmp/err")"

planted=$(grep -v '^#' "$(dirname "$check")/../tests/planted-secrets.txt" | head -1)
for secret in kubeconfig-token-7d1f0c "$key_line" minted-token-93ab71 "$planted"; do
  printf 'before %s after\n' "$secret" >"$tmp/leak.log"
  if run "$tmp/clean.log" "$tmp/leak.log"; then fail "a log with a secret passed"; fi
  grep -q 'leak.log contains' "$tmp/err" || fail "the finding does not name the log: $(cat "$tmp/err")"
  if grep -qF -- "$secret" "$tmp/err"; then fail "the finding prints the secret"; fi
done

if "$check" 2>/dev/null; then fail "no log passed"; fi
if run 2>/dev/null; then fail "no log passed (with lists)"; fi
if "$check" --secrets-file "$tmp/nope" "$tmp/clean.log" 2>/dev/null; then fail "a missing list passed"; fi
if "$check" --kubeconfig "$tmp/clean.log" "$tmp/clean.log" 2>/dev/null; then
  fail "a kubeconfig without credentials passed"
fi
echo "check-no-secrets: every kind of secret found, none printed"
