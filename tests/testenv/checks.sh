#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# Checks that testenv is a real, working control plane, using kubectl as an independent
# client: the kubectl v1.35.4 built with testenv (a symlink beside KUBEX_TESTENV_BIN, put
# first on PATH here as scripts/with-testenv.sh does). Usage: checks.sh CHECK_NAME   (ctest
# runs each check as its own test).
#
# Checks on the shared control plane need KUBECONFIG and KUBEX_TESTENV_DIR/BIN from
# scripts/with-testenv.sh; the lifecycle checks start and stop testenv instances of their own.
set -euo pipefail

fail() { echo "FAIL: $*" >&2; exit 1; }
if [ -n "${KUBEX_TESTENV_BIN:-}" ]; then
  PATH="$(dirname "$KUBEX_TESTENV_BIN"):$PATH"
fi
need_env() {
  [ -n "${KUBEX_TESTENV_KUBECONFIG:-}" ] && [ -n "${KUBEX_TESTENV_BIN:-}" ] ||
    fail "KUBEX_TESTENV_KUBECONFIG/KUBEX_TESTENV_BIN unset: run under scripts/with-testenv.sh"
  export KUBECONFIG=$KUBEX_TESTENV_KUBECONFIG
}
# Polls a command for up to $1 seconds.
eventually() {
  local timeout=$1; shift
  local end=$((SECONDS + timeout))
  until "$@" >/dev/null 2>&1; do
    [ $SECONDS -lt $end ] || return 1
    sleep 0.5
  done
}
unique_ns() { echo "$1-$RANDOM$RANDOM"; }

# GETs PATH with "Accept-Encoding: gzip" as the kubeconfig's current user and prints the
# response's Content-Encoding ("identity" when it has none) and body size. The apiserver gzips
# only bodies of 128 KiB or more, and kubectl hides the header (Go's transport inflates), so
# this asks by itself. Usage: encoding_of KUBECONFIG PATH
encoding_of() {
  kubectl --kubeconfig "$1" config view --raw --minify -o json | python3 -c '
import base64, json, ssl, sys, tempfile, urllib.request
cfg = json.load(sys.stdin)
cluster, user = cfg["clusters"][0]["cluster"], cfg["users"][0]["user"]
with tempfile.NamedTemporaryFile("w", suffix=".crt") as ca:
    ca.write(base64.b64decode(cluster["certificate-authority-data"]).decode()); ca.flush()
    context = ssl.create_default_context(cafile=ca.name)
    request = urllib.request.Request(cluster["server"] + sys.argv[1], headers={
        "Accept-Encoding": "gzip", "Authorization": "Bearer " + user["token"]})
    with urllib.request.urlopen(request, context=context) as r:
        print(r.headers.get("Content-Encoding") or "identity", len(r.read()))
' "$2"
}
# A ConfigMap of about 300 KB in namespace $1 (named big), above the apiserver's gzip threshold.
make_big_configmap() {
  python3 -c 'print("x" * 300000)' >"${TMPDIR:-/tmp}/big-$$.txt"
  kubectl -n "$1" create configmap big --from-file=data="${TMPDIR:-/tmp}/big-$$.txt" >/dev/null
  rm -f "${TMPDIR:-/tmp}/big-$$.txt"
}

check_version() {
  need_env
  local v
  v=$(kubectl version -o json | python3 -c 'import json,sys; print(json.load(sys.stdin)["serverVersion"]["gitVersion"])')
  [ "$v" = "v1.35.4" ] || fail "server reports $v, want v1.35.4"
  echo "server version $v"
}

check_kubectl_version() {
  need_env
  local path v
  path=$(command -v kubectl) || fail "no kubectl on PATH"
  [ "$path" = "$(dirname "$KUBEX_TESTENV_BIN")/kubectl" ] || fail "kubectl on PATH is $path, not the one beside $KUBEX_TESTENV_BIN"
  v=$(kubectl version --client -o json | python3 -c 'import json,sys; print(json.load(sys.stdin)["clientVersion"]["gitVersion"])')
  [ "$v" = "v1.35.4" ] || fail "kubectl reports $v, want v1.35.4"
  [ "$(testenv_kubectl version --client -o json | python3 -c 'import json,sys; print(json.load(sys.stdin)["clientVersion"]["gitVersion"])')" = v1.35.4 ] ||
    fail "'testenv kubectl' is not kubectl v1.35.4"
  echo "kubectl $v at $path"
}
testenv_kubectl() { "$KUBEX_TESTENV_BIN" kubectl "$@"; }

# A Running pod "stream" in namespace $1 for the streaming checks: container c (stdin: true,
# echoes attached input: sim.kubex.dev/attach=echo; ports echo 7777, http-web 8080) and
# container quiet (stdin: false, no ports).
make_stream_pod() {
  kubectl create namespace "$1" >/dev/null
  eventually 30 kubectl -n "$1" get serviceaccount default || fail "no default ServiceAccount in $1"
  kubectl -n "$1" apply -f - >/dev/null <<YAML
apiVersion: v1
kind: Pod
metadata:
  name: stream
  annotations: {sim.kubex.dev/attach: echo}
spec:
  containers:
  - name: c
    image: busybox:1.36
    stdin: true
    ports: [{name: echo, containerPort: 7777}, {name: http-web, containerPort: 8080}]
  - name: quiet
    image: busybox:1.36
YAML
  kubectl -n "$1" wait --for=condition=Ready pod/stream --timeout=60s >/dev/null || fail "pod stream not Ready"
}

# Exec through the apiserver: kubectl 1.35 speaks WebSocket v5 (translated to SPDY for the
# kubelet); KUBECTL_REMOTE_COMMAND_WEBSOCKETS=false makes it speak SPDY end to end.
check_exec() {
  need_env
  local ns; ns=$(unique_ns exec)
  make_stream_pod "$ns"
  local tmp; tmp=$(mktemp -d)
  local mode rc out
  for mode in websocket spdy; do
    local env=()
    [ "$mode" = spdy ] && env=(env KUBECTL_REMOTE_COMMAND_WEBSOCKETS=false)
    out=$("${env[@]}" kubectl -n "$ns" exec stream -c c -- echo hi) || fail "$mode: exec echo failed"
    [ "$out" = hi ] || fail "$mode: exec echo printed '$out'"
    rc=0; "${env[@]}" kubectl -n "$ns" exec stream -c c -- sh -c 'exit 3' 2>"$tmp/err" || rc=$?
    [ "$rc" = 3 ] || fail "$mode: sh -c 'exit 3' exited $rc: $(cat "$tmp/err")"
    rc=0; "${env[@]}" kubectl -n "$ns" exec stream -c c -- exit 137 2>/dev/null || rc=$?
    [ "$rc" = 137 ] || fail "$mode: exit 137 exited $rc"
    "${env[@]}" kubectl -n "$ns" exec stream -c c -- sh -c 'echo out; echo err >&2' >"$tmp/out" 2>"$tmp/err" || fail "$mode: exec out/err failed"
    [ "$(cat "$tmp/out")" = out ] || fail "$mode: stdout is '$(cat "$tmp/out")', want out"
    [ "$(cat "$tmp/err")" = err ] || fail "$mode: stderr is '$(cat "$tmp/err")', want err"
    out=$(printf 'abc' | "${env[@]}" kubectl -n "$ns" exec -i stream -c c -- cat) || fail "$mode: exec -i cat failed"
    [ "$out" = abc ] || fail "$mode: cat gave '$out'"
    # Through stdin and back, with back-pressure: 4 MiB.
    out=$(head -c 4194304 /dev/zero | "${env[@]}" kubectl -n "$ns" exec -i stream -c c -- cat | wc -c) || fail "$mode: 4 MiB through cat failed"
    [ "$out" -eq 4194304 ] || fail "$mode: 4 MiB through cat came back as $out bytes"
    out=$("${env[@]}" kubectl -n "$ns" exec stream -c c -- yes-bytes 1000000 | wc -c)
    [ "$out" -eq 1000000 ] || fail "$mode: yes-bytes 1000000 gave $out bytes"
    if "${env[@]}" kubectl -n "$ns" exec stream -c c -- nope >/dev/null 2>"$tmp/err"; then fail "$mode: exec nope succeeded"; fi
    grep -q 'executable file not found' "$tmp/err" || fail "$mode: exec nope said: $(cat "$tmp/err")"
  done
  if kubectl -n "$ns" exec stream -c missing -- true 2>"$tmp/err"; then fail "exec into a missing container succeeded"; fi
  grep -q 'container missing is not valid' "$tmp/err" || fail "exec into a missing container said: $(cat "$tmp/err")"
  rm -rf "$tmp"
  kubectl delete namespace "$ns" --wait=false >/dev/null
  echo "exec over WebSocket v5 and SPDY: output, stderr, exit codes 3 and 137, stdin, 4 MiB, unknown command"
}

check_attach() {
  need_env
  local ns; ns=$(unique_ns attach)
  make_stream_pod "$ns"
  local tmp; tmp=$(mktemp -d)
  local mode out
  for mode in websocket spdy; do
    local env=()
    [ "$mode" = spdy ] && env=(env KUBECTL_REMOTE_COMMAND_WEBSOCKETS=false)
    out=$(printf 'hello %s\n' "$mode" | timeout 30 "${env[@]}" kubectl -n "$ns" attach -i stream -c c 2>"$tmp/err") ||
      fail "$mode: attach -i failed: $(cat "$tmp/err")"
    [ "$out" = "hello $mode" ] || fail "$mode: attach echoed '$out', want 'hello $mode'"
  done
  # The echo went to the container's log too.
  out=$(kubectl -n "$ns" logs stream -c c)
  [ "$out" = $'hello websocket\nhello spdy' ] || fail "log after attach is '$out'"
  # A container without stdin: true does not take input.
  if timeout 30 kubectl -n "$ns" attach -i stream -c quiet </dev/null >/dev/null 2>"$tmp/err"; then
    fail "attach -i to a container with stdin: false succeeded"
  fi
  grep -q 'does not accept input' "$tmp/err" || fail "attach -i to quiet said: $(cat "$tmp/err")"
  rm -rf "$tmp"
  kubectl delete namespace "$ns" --wait=false >/dev/null
  echo "attach -i over WebSocket v5 and SPDY: input echoed and logged; stdin: false refused"
}

# Port-forward through the apiserver: kubectl 1.35 tunnels SPDY in WebSocket
# (SPDY/3.1+portforward.k8s.io); PORT_FORWARD_WEBSOCKETS=false makes it speak SPDY.
check_port_forward() {
  need_env
  local ns; ns=$(unique_ns pf)
  make_stream_pod "$ns"
  local tmp; tmp=$(mktemp -d)
  local mode
  for mode in websocket spdy; do
    local env=()
    [ "$mode" = spdy ] && env=(env PORT_FORWARD_WEBSOCKETS=false)
    "${env[@]}" kubectl -n "$ns" port-forward pod/stream :7777 :8080 :9999 >"$tmp/pf.out" 2>"$tmp/pf.err" &
    local pf=$!
    if ! eventually 30 bash -c "[ \$(grep -c '^Forwarding from 127.0.0.1' '$tmp/pf.out') -eq 3 ]"; then
      kill "$pf" 2>/dev/null || true
      fail "$mode: port-forward not ready: $(cat "$tmp/pf.err")"
    fi
    local echo_port http_port closed_port
    echo_port=$(sed -n 's/^Forwarding from 127.0.0.1:\([0-9]*\) -> 7777$/\1/p' "$tmp/pf.out")
    http_port=$(sed -n 's/^Forwarding from 127.0.0.1:\([0-9]*\) -> 8080$/\1/p' "$tmp/pf.out")
    closed_port=$(sed -n 's/^Forwarding from 127.0.0.1:\([0-9]*\) -> 9999$/\1/p' "$tmp/pf.out")
    local rc=0
    python3 - "$echo_port" "$http_port" "$closed_port" <<'PY' || rc=$?
import socket, sys, urllib.request
echo_port, http_port, closed_port = map(int, sys.argv[1:])
# Echo: 1 MiB out, half-close, all of it back, then the server's close.
data = bytes(range(256)) * 4096
with socket.create_connection(("127.0.0.1", echo_port), timeout=30) as s:
    s.sendall(data)
    s.shutdown(socket.SHUT_WR)
    got = bytearray()
    while chunk := s.recv(65536):
        got += chunk
assert bytes(got) == data, f"echo returned {len(got)} of {len(data)} bytes"
# HTTP: GET /bytes/1000.
with urllib.request.urlopen(f"http://127.0.0.1:{http_port}/bytes/1000", timeout=30) as r:
    body = r.read()
    assert r.headers["Content-Length"] == "1000", r.headers
assert body == bytes(ord("a") + i % 26 for i in range(1000)), body[:40]
# An undeclared port: the connection is accepted locally, then closed without data.
with socket.create_connection(("127.0.0.1", closed_port), timeout=30) as s:
    try:
        s.sendall(b"x")
        assert s.recv(10) == b"", "data from a closed port"
    except ConnectionResetError:
        pass
PY
    if [ "$rc" = 0 ]; then
      eventually 10 grep -q 'connection refused' "$tmp/pf.err" || rc=1
    fi
    kill "$pf" 2>/dev/null || true
    wait "$pf" 2>/dev/null || true
    [ "$rc" = 0 ] || fail "$mode: port-forward checks failed; kubectl said: $(cat "$tmp/pf.err")"
  done
  rm -rf "$tmp"
  kubectl delete namespace "$ns" --wait=false >/dev/null
  echo "port-forward over the WebSocket tunnel and SPDY: 1 MiB echoed with half-close, GET /bytes/1000, closed port refused"
}

check_deployment_runs_pods() {
  need_env
  local ns; ns=$(unique_ns deploy)
  kubectl create namespace "$ns" >/dev/null
  eventually 30 kubectl -n "$ns" get serviceaccount default || fail "no default ServiceAccount in $ns"
  kubectl -n "$ns" apply -f - >/dev/null <<YAML
apiVersion: apps/v1
kind: Deployment
metadata: {name: web}
spec:
  replicas: 3
  selector: {matchLabels: {app: web}}
  template:
    metadata: {labels: {app: web}}
    spec: {containers: [{name: web, image: nginx:1.27}]}
YAML
  kubectl -n "$ns" rollout status deployment/web --timeout=60s >/dev/null || fail "deployment did not roll out"
  local phases
  phases=$(kubectl -n "$ns" get pods -l app=web -o jsonpath='{range .items[*]}{.status.phase}{"\n"}{end}' | sort | uniq -c | xargs)
  [ "$phases" = "3 Running" ] || fail "want 3 Running pods, got: $phases"
  # What a kubelet reports: IPs, container IDs, start time, QoS class, Ready condition.
  local pod; pod=$(kubectl -n "$ns" get pods -l app=web -o jsonpath='{.items[0].metadata.name}')
  local fields
  fields=$(kubectl -n "$ns" get pod "$pod" -o json | python3 -c '
import json, sys
p = json.load(sys.stdin); s = p["status"]; c = s["containerStatuses"][0]
assert s["podIP"].startswith("10.244."), s["podIP"]
assert s["hostIP"] == "127.0.0.1"
assert s["startTime"] and s["qosClass"] == "BestEffort"
assert c["containerID"].startswith("containerd://") and len(c["containerID"]) == 77
assert "running" in c["state"] and c["state"]["running"]["startedAt"]
assert c["ready"] and c["started"] and c["imageID"]
conds = {x["type"]: x["status"] for x in s["conditions"]}
for t in ("PodScheduled", "Initialized", "ContainersReady", "Ready", "PodReadyToStartContainers"):
    assert conds.get(t) == "True", (t, conds)
assert s["observedGeneration"] == p["metadata"]["generation"]
print("ok")') || fail "pod status is not what a kubelet reports"
  [ "$fields" = ok ] || fail "pod status check printed $fields"
  kubectl delete namespace "$ns" --wait=false >/dev/null
  echo "3 Running pods with a realistic status"
}

check_gzip_by_default() {
  # The positive control of check_flags: a stock apiserver gzips the same response when asked.
  need_env
  local ns; ns=$(unique_ns gzip)
  kubectl create namespace "$ns" >/dev/null
  make_big_configmap "$ns"
  local enc; enc=$(encoding_of "$KUBECONFIG" "/api/v1/namespaces/$ns/configmaps/big")
  [ "${enc%% *}" = gzip ] || fail "a 300 KB response was not gzipped on request: $enc"
  [ "${enc##* }" -lt 100000 ] || fail "the gzipped response has ${enc##* } bytes"
  kubectl delete namespace "$ns" --wait=false >/dev/null
  echo "a 300 KB ConfigMap comes gzipped when asked: $enc"
}

check_namespace_deletion_completes() {
  need_env
  local ns; ns=$(unique_ns delns)
  "$KUBEX_TESTENV_BIN" seed --namespace "$ns" --pods 20 --log-emitter=false
  kubectl -n "$ns" create configmap cm --from-literal=a=b >/dev/null
  kubectl delete namespace "$ns" --timeout=120s >/dev/null || fail "namespace $ns not deleted in 120s"
  if kubectl get namespace "$ns" >/dev/null 2>&1; then fail "namespace $ns still exists"; fi
  echo "namespace with 20 Running pods deleted"
}

check_graceful_pod_deletion() {
  need_env
  local ns; ns=$(unique_ns grace)
  "$KUBEX_TESTENV_BIN" seed --namespace "$ns" --pods 1 --log-emitter=false
  local start=$SECONDS
  kubectl -n "$ns" delete pod seed-0 --timeout=30s >/dev/null || fail "graceful delete did not complete"
  [ $((SECONDS - start)) -lt 10 ] || fail "graceful deletion took $((SECONDS - start))s"
  kubectl delete namespace "$ns" --wait=false >/dev/null
  echo "pod deleted with the default grace period in $((SECONDS - start))s"
}

check_seed_500_pods() {
  need_env
  local ns; ns=$(unique_ns seed)
  local start=$SECONDS
  "$KUBEX_TESTENV_BIN" seed --namespace "$ns" --pods 500
  local took=$((SECONDS - start))
  local running
  running=$(kubectl -n "$ns" get pods --field-selector=status.phase=Running -o name | wc -l)
  [ "$running" -eq 501 ] || fail "want 501 Running pods (500 seed + log-emitter), got $running"
  [ "$took" -lt 60 ] || fail "seeding 500 pods took ${took}s (limit 60s)"
  # Kubex's template exactly: one container c, pause:3.9, no labels, no annotations.
  kubectl -n "$ns" get pod seed-499 -o json | python3 -c '
import json, sys
p = json.load(sys.stdin)
assert [c["name"] for c in p["spec"]["containers"]] == ["c"]
assert p["spec"]["containers"][0]["image"] == "registry.k8s.io/pause:3.9"
assert not p["metadata"].get("labels") and not p["metadata"].get("annotations"), p["metadata"]
' || fail "seed pod does not match Kubex's template"
  kubectl delete namespace "$ns" --wait=false >/dev/null
  echo "500 pods Running in ${took}s"
}

check_logs() {
  need_env
  local ns; ns=$(unique_ns logs)
  "$KUBEX_TESTENV_BIN" seed --namespace "$ns" --pods 0
  # The emitter writes a line a millisecond: wait for the first 100 instead of a fixed time.
  eventually 30 bash -c "[ \"\$(kubectl -n $ns logs log-emitter | wc -l)\" -ge 100 ]" ||
    fail "log-emitter did not write 100 lines in 30s"
  local out n
  out=$(kubectl -n "$ns" logs log-emitter)
  n=$(wc -l <<<"$out")
  [ "$n" -ge 100 ] || fail "want >= 100 lines, got $n"
  [ "$(head -1 <<<"$out")" = "line-0" ] || fail "first line is $(head -1 <<<"$out")"
  # Lines are consecutive.
  python3 -c '
import sys
lines = sys.stdin.read().split()
assert lines == ["line-%d" % i for i in range(len(lines))], "lines are not consecutive"' <<<"$out" || fail "log lines are not line-0, line-1, ..."
  [ "$(kubectl -n "$ns" logs log-emitter --tail=5 | wc -l)" -eq 5 ] || fail "--tail=5 did not return 5 lines"
  kubectl -n "$ns" logs log-emitter --timestamps --tail=1 | grep -Eq '^20[0-9-]+T[0-9:.]+Z line-[0-9]+$' || fail "--timestamps lines are not '<RFC3339> line-N'"
  [ "$(kubectl -n "$ns" logs log-emitter --limit-bytes=7)" = "line-0" ] || fail "--limit-bytes=7 is not 'line-0\\n'"
  # Follow: new lines keep arriving, consecutive, after the current end (read until 1,000
  # came; head closes the pipe, which ends kubectl).
  local followed
  followed=$(timeout 60 kubectl -n "$ns" logs -f log-emitter --tail=0 | head -n 1000 || true)
  [ "$(wc -l <<<"$followed")" -eq 1000 ] || fail "logs -f delivered $(wc -l <<<"$followed") lines in 60s, want 1000"
  python3 -c '
import sys
lines = sys.stdin.read().split()
first = int(lines[0].split("-")[1])
assert first >= int(sys.argv[1]), (first, sys.argv[1])
assert lines == ["line-%d" % i for i in range(first, first + len(lines))], "not consecutive"' "$n" <<<"$followed" ||
    fail "followed lines are not consecutive lines after the end of the log"
  followed=1000
  if kubectl -n "$ns" logs log-emitter --previous >/dev/null 2>&1; then fail "--previous succeeded for a container that never restarted"; fi
  kubectl delete namespace "$ns" --wait=false >/dev/null
  echo "logs: $n lines, tail, timestamps, limit-bytes, follow ($followed consecutive new lines)"
}

check_logs_follow_ends_when_container_exits() {
  need_env
  local ns; ns=$(unique_ns exit)
  kubectl create namespace "$ns" >/dev/null
  eventually 30 kubectl -n "$ns" get serviceaccount default || fail "no default ServiceAccount"
  kubectl -n "$ns" apply -f - >/dev/null <<YAML
apiVersion: v1
kind: Pod
metadata:
  name: short
  annotations: {sim.kubex.dev/log-interval: 10ms, sim.kubex.dev/exit-after: 3s, sim.kubex.dev/exit-code: "3"}
spec:
  restartPolicy: Never
  containers: [{name: c, image: busybox:1.36}]
YAML
  eventually 30 bash -c "[ \"\$(kubectl -n $ns get pod short -o jsonpath='{.status.phase}')\" = Running ]" || fail "pod not Running"
  local start=$SECONDS
  timeout 20 kubectl -n "$ns" logs -f short >/dev/null || fail "logs -f did not end when the container exited"
  eventually 20 bash -c "[ \"\$(kubectl -n $ns get pod short -o jsonpath='{.status.phase}')\" = Failed ]" || fail "pod did not become Failed"
  local code; code=$(kubectl -n "$ns" get pod short -o jsonpath='{.status.containerStatuses[0].state.terminated.exitCode}')
  [ "$code" = 3 ] || fail "exit code $code, want 3"
  kubectl delete namespace "$ns" --wait=false >/dev/null
  echo "follow ended after $((SECONDS - start))s when the container exited with code 3"
}

check_job_completes() {
  need_env
  local ns; ns=$(unique_ns job)
  kubectl create namespace "$ns" >/dev/null
  eventually 30 kubectl -n "$ns" get serviceaccount default || fail "no default ServiceAccount"
  kubectl -n "$ns" create job once --image=busybox:1.36 -- true >/dev/null
  kubectl -n "$ns" wait --for=condition=Complete job/once --timeout=60s >/dev/null || fail "job did not complete"
  kubectl delete namespace "$ns" --wait=false >/dev/null
  echo "job completed"
}

check_rbac_forbidden() {
  need_env
  local out
  if out=$(kubectl --context user -n default get pods 2>&1); then fail "user listed pods in default: $out"; fi
  grep -q 'Forbidden' <<<"$out" || fail "want Forbidden, got: $out"
  if out=$(kubectl --context user get namespaces 2>&1); then fail "user listed namespaces"; fi
  kubectl --context user get pods >/dev/null || fail "user cannot list pods in its own namespace"
  kubectl --context user create configmap "cm-$RANDOM" --from-literal=a=b >/dev/null || fail "user cannot create in its namespace"
  [ "$(kubectl --context user auth whoami -o jsonpath='{.status.userInfo.username}')" = kubex-user ] || fail "user context is not kubex-user"
  [ "$(kubectl --context admin-cert auth whoami -o jsonpath='{.status.userInfo.username}')" = kubex-admin-cert ] || fail "admin-cert context is not the client certificate"
  echo "user: 403 outside kubex-user, allowed inside; admin-cert authenticates by certificate"
}

check_node_leases_renewed() {
  need_env
  local first second
  first=$(kubectl -n kube-node-lease get lease sim-node-0 -o jsonpath='{.spec.renewTime}')
  eventually 25 bash -c "[ \"\$(kubectl -n kube-node-lease get lease sim-node-0 -o jsonpath='{.spec.renewTime}')\" != '$first' ]" || fail "lease not renewed in 25s"
  second=$(kubectl -n kube-node-lease get lease sim-node-0 -o jsonpath='{.spec.renewTime}')
  [ "$(kubectl get node sim-node-0 -o jsonpath='{.status.conditions[?(@.type=="Ready")].status}')" = True ] || fail "node not Ready"
  local pods; pods=$(kubectl get node sim-node-0 -o jsonpath='{.status.allocatable.pods}')
  python3 -c 'import sys; v=sys.argv[1]; n=int(v[:-1])*1000 if v.endswith("k") else int(v); sys.exit(n < 600)' "$pods" ||
    fail "node pod capacity $pods < 600"
  echo "lease renewed ($first -> $second); node Ready"
}

check_apiserver_restart_keeps_data() {
  need_env
  local ns; ns=$(unique_ns restart)
  kubectl create namespace "$ns" >/dev/null
  kubectl -n "$ns" create configmap keep --from-literal=k=v >/dev/null
  local before; before=$("$KUBEX_TESTENV_BIN" ctl --dir "$KUBEX_TESTENV_DIR" status)
  "$KUBEX_TESTENV_BIN" ctl --dir "$KUBEX_TESTENV_DIR" --signal KILL apiserver-restart >/dev/null || fail "restart failed"
  local after; after=$("$KUBEX_TESTENV_BIN" ctl --dir "$KUBEX_TESTENV_DIR" status)
  [ "$before" != "$after" ] || fail "apiserver PID unchanged after restart: $after"
  [ "$(kubectl -n "$ns" get configmap keep -o jsonpath='{.data.k}')" = v ] || fail "data lost across restart"
  "$KUBEX_TESTENV_BIN" ctl --dir "$KUBEX_TESTENV_DIR" apiserver-stop >/dev/null
  if kubectl get --request-timeout=3s namespaces >/dev/null 2>&1; then fail "apiserver still answers after stop"; fi
  "$KUBEX_TESTENV_BIN" ctl --dir "$KUBEX_TESTENV_DIR" apiserver-start >/dev/null
  [ "$(kubectl -n "$ns" get configmap keep -o jsonpath='{.data.k}')" = v ] || fail "data lost across stop/start"
  # Controllers and the scheduler survive the outage: new pods still get scheduled and run.
  # Their informers come back on client-go's backoff, which each failed watch doubles up to
  # 30 s and jitter doubles again, and earlier tests restart the apiserver too: allow two such
  # periods and more.
  "$KUBEX_TESTENV_BIN" seed --namespace "$ns" --pods 3 --log-emitter=false --timeout 150s || fail "no pods Running after the restart"
  kubectl delete namespace "$ns" --wait=false >/dev/null
  echo "apiserver killed, restarted, stopped and started; data kept; pods still scheduled"
}

# --- lifecycle checks: each starts its own testenv ---------------------------------------

# Starts "testenv up ARGS" with stdin on a FIFO held open on fd 8; sets TE_PID, TE_DIR, TE_OUT.
start_own() {
  local bin=${KUBEX_TESTENV_BIN:?}
  TE_TMP=$(mktemp -d); TE_OUT=$TE_TMP/out
  mkfifo "$TE_TMP/in"
  "$bin" up "$@" <"$TE_TMP/in" >"$TE_OUT" 2>"$TE_TMP/err" &
  TE_PID=$!
  exec 8>"$TE_TMP/in"
  eventually 120 grep -q '^TESTENV READY' "$TE_OUT" || { cat "$TE_TMP/err" >&2; fail "testenv not ready"; }
  TE_DIR=$(sed -n 's/.* dir=\([^ ]*\).*/\1/p' "$TE_OUT")
  TE_PORT=$(sed -n 's/.*server=https:\/\/127.0.0.1:\([0-9]*\).*/\1/p' "$TE_OUT")
}
# After a stop: the process is gone, no child is left, the port is closed, the dir removed.
assert_clean_stop() {
  local how=$1
  local i
  for i in $(seq 1 600); do kill -0 "$TE_PID" 2>/dev/null || break; sleep 0.1; done
  kill -0 "$TE_PID" 2>/dev/null && fail "$how: testenv still running after 60s"
  wait "$TE_PID" || fail "$how: testenv exited with status $?"
  pgrep -f "$TE_DIR" >/dev/null && fail "$how: a component of $TE_DIR is still running"
  (exec 3<>"/dev/tcp/127.0.0.1/$TE_PORT") 2>/dev/null && fail "$how: port $TE_PORT still open"
  [ -e "$TE_DIR" ] && fail "$how: run directory $TE_DIR left behind"
  exec 8>&- || true
  rm -rf "$TE_TMP"
}

check_stop_on_sigterm() {
  start_own --controller-manager=false --scheduler=false --nodes=1
  kill -TERM "$TE_PID"; assert_clean_stop SIGTERM; echo "SIGTERM: clean stop"
}
check_stop_on_sigint() {
  start_own --controller-manager=false --scheduler=false --nodes=1
  kill -INT "$TE_PID"; assert_clean_stop SIGINT; echo "SIGINT: clean stop"
}
check_stop_on_stdin_close() {
  start_own --nodes=1
  exec 8>&-; assert_clean_stop "stdin close"; echo "stdin close: clean stop"
}

check_flags() {
  # Flags reach the apiserver: gzip off, no watch cache, short watch timeout, fixed port.
  local port; port=$(python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1])')
  start_own --controller-manager=false --scheduler=false --nodes=1 --apiserver-port="$port" \
    --feature-gates=APIResponseCompression=false --watch-cache=false --min-request-timeout=5
  [ "$TE_PORT" = "$port" ] || fail "--apiserver-port ignored: $TE_PORT"
  local args; args=$(cat "/proc/$(python3 -c "import json;print(json.load(open('$TE_DIR/env.json'))['apiserverPID'])")/cmdline" | tr '\0' ' ')
  for f in --feature-gates=APIResponseCompression=false --watch-cache=false --min-request-timeout=5; do
    grep -q -- "$f" <<<"$args" || fail "apiserver not started with $f"
  done
  local kc; kc=$(sed -n 's/.* kubeconfig=\([^ ]*\).*/\1/p' "$TE_OUT")
  # The same large response that check_gzip_by_default sees compressed.
  KUBECONFIG=$kc make_big_configmap default
  local enc; enc=$(encoding_of "$kc" /api/v1/namespaces/default/configmaps/big)
  [ "${enc%% *}" = identity ] || fail "response compressed although APIResponseCompression=false: $enc"
  [ "${enc##* }" -ge 300000 ] || fail "the large ConfigMap came back with ${enc##* } bytes"
  # With --min-request-timeout=5 the server ends a watch after 5-10 s, and kubectl then exits 0.
  local start=$SECONDS rc=0
  KUBECONFIG=$kc timeout 30 kubectl get namespaces --watch --request-timeout=0 >/dev/null 2>"$TE_TMP/watch.err" || rc=$?
  local took=$((SECONDS - start))
  [ "$rc" -ne 124 ] || fail "watch not ended by the server in 30 s with --min-request-timeout=5"
  [ "$rc" -eq 0 ] || fail "kubectl watch failed with status $rc: $(cat "$TE_TMP/watch.err")"
  [ "$took" -ge 4 ] && [ "$took" -le 15 ] || fail "watch lasted ${took}s with --min-request-timeout=5, want 5-10s"
  kill -TERM "$TE_PID"; assert_clean_stop SIGTERM
  echo "flags reach the apiserver: no gzip on $enc bytes; watch ended after ${took}s"
}

check_bad_flags() {
  local bin=${KUBEX_TESTENV_BIN:?} out
  if out=$("$bin" up --nodes=0 </dev/null 2>&1); then fail "--nodes=0 accepted"; fi
  grep -q -- '--nodes' <<<"$out" || fail "error does not name --nodes: $out"
  if out=$("$bin" up --exit-on-stdin-close=maybe </dev/null 2>&1); then fail "bad --exit-on-stdin-close accepted"; fi
  if out=$("$bin" nonsense 2>&1); then fail "unknown command accepted"; fi
  grep -q 'unknown command' <<<"$out" || fail "unclear error: $out"
  if out=$("$bin" seed --pods 3 2>&1); then fail "seed without --namespace accepted"; fi
  grep -q -- '--namespace' <<<"$out" || fail "error does not name --namespace: $out"
  echo "bad flags rejected with clear errors"
}

name=${1:?usage: $0 CHECK_NAME}
declare -F "check_$name" >/dev/null || fail "unknown check $name"
"check_$name"
