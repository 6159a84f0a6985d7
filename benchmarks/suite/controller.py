#!/usr/bin/env python3
# SPDX-License-Identifier: Apache-2.0
"""The controller benchmark: kubex's Controller beside a controller-runtime (Go) and a kube-rs
controller doing the same work, on one testenv, in the same run.

    scripts/with-testenv.sh -- python3 benchmarks/suite/controller.py \\
        --build-dir build/bench --out benchmarks/controller

The work (benchmarks/suite/controller/README.md has the adapters' protocol): each Echo custom
resource (controller/echo-crd.yaml) is reconciled into a ConfigMap of its name holding its
spec.value and owned by it, by server-side apply; each controller watches Echoes and owns the
ConfigMaps. Per round and in a shuffled adapter order, one fresh process each, in a namespace
of its own holding --count Echoes created beforehand:

    converge   process start to every Echo reconciled once (its ConfigMap applied): wall time,
               reconciles per second, the control plane's CPU meanwhile
    latency    then, --settle-ms later (the convergence's own applies change the owned
               ConfigMaps, which queue each Echo once more), --samples Echoes are changed
               one at a time, --spacing-ms apart, each
               stamped with the wall clock just before its PATCH (sent through `kubectl proxy`,
               the same path for every adapter); each controller records, at the start of the
               reconcile that sees the change, how long ago that was: p50 and p99
    resources  at the end, before shutting down: the process's CPU (user + system, the whole
               run) and its RSS and peak RSS

Concurrency is --workers reconciles for every controller (controller-runtime's
MaxConcurrentReconciles, kube-rs's Config::concurrency, kubex's ControllerConfig::concurrency);
no client-side rate limit throttles any of them. The control plane is pinned to one CPU and the
controllers to the other, as in the suite.
"""

from __future__ import annotations

import argparse
import json
import os
import random
import signal
import statistics
import subprocess
import sys
import threading
import time
import urllib.request
from dataclasses import dataclass
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
import run as suite  # noqa: E402  (the suite's pinning, server CPU, peers' cache)

ROOT = suite.ROOT
HERE = Path(__file__).resolve().parent
ADAPTERS_DIR = HERE / "adapters"
CRD = HERE / "controller" / "echo-crd.yaml"


@dataclass
class Adapter:
    name: str
    label: str
    command: list[str]
    setup: list[str]


def adapters(build_dir: Path) -> list[Adapter]:
    cache = suite.cache_dir()
    return [
        Adapter("kubex", "kubex: runtime::Controller (owns: metadata-only reflector)",
                [str(build_dir / "benchmarks" / "suite" / "kubex-bench-kubex-controller")], []),
        Adapter("controller-runtime", "controller-runtime v0.23.3 (client-go v0.35, JSON)",
                [str(cache / "controller-runtime" / "bench-controller-runtime")],
                ["bash", str(ADAPTERS_DIR / "controller-runtime" / "setup.sh")]),
        Adapter("kube-rs", "kube 5.0.0: kube-runtime Controller",
                [str(cache / "kube-rs" / "target" / "release" / "kube-rs-controller")],
                ["bash", str(ADAPTERS_DIR / "kube-rs" / "setup.sh")]),
    ]


def set_up(selected: list[Adapter]) -> None:
    peers = [suite.Peer(suite.Adapter(a.name, a.label, a.command, None), a.setup,
                        Path(a.setup[1]).parent) for a in selected if a.setup]
    suite.set_up_peers(peers)


def kubectl(kubeconfig: str, *args: str, stdin: str | None = None) -> str:
    return subprocess.run(["kubectl", "--kubeconfig", kubeconfig, *args], input=stdin,
                          capture_output=True, text=True, check=True).stdout


def echoes(count: int) -> str:
    items = [{"apiVersion": "bench.kubex.dev/v1", "kind": "Echo",
              "metadata": {"name": f"echo-{i}"}, "spec": {"value": f"v{i}"}}
             for i in range(count)]
    return json.dumps({"apiVersion": "v1", "kind": "List", "items": items})


class Proxy:
    """`kubectl proxy` on a free port: plain HTTP to the apiserver for the timed changes."""

    def __init__(self, kubeconfig: str):
        self.proc = subprocess.Popen(["kubectl", "--kubeconfig", kubeconfig, "proxy", "--port",
                                      "0"], stdout=subprocess.PIPE, text=True)
        assert self.proc.stdout is not None
        line = self.proc.stdout.readline()  # "Starting to serve on 127.0.0.1:PORT"
        self.base = "http://" + line.strip().rsplit(" ", 1)[-1]

    def patch_echo(self, namespace: str, name: str, value: str) -> None:
        sent = time.time_ns()
        body = json.dumps({"metadata": {"annotations": {"bench.kubex.dev/sent": str(sent)}},
                           "spec": {"value": value}}).encode()
        req = urllib.request.Request(
            f"{self.base}/apis/bench.kubex.dev/v1/namespaces/{namespace}/echoes/{name}",
            data=body, method="PATCH",
            headers={"Content-Type": "application/merge-patch+json"})
        with urllib.request.urlopen(req) as resp:
            resp.read()

    def close(self) -> None:
        self.proc.terminate()
        self.proc.wait()


def run_one(a: Adapter, args, kubeconfig: str, server: suite.ServerCpu, proxy: Proxy,
            rnd: int) -> dict:
    ns = f"ctrl-{a.name}-{random.SystemRandom().getrandbits(24):06x}"
    kubectl(kubeconfig, "create", "namespace", ns)
    kubectl(kubeconfig, "-n", ns, "create", "-f", "-", stdin=echoes(args.count))
    argv = a.command + ["--kubeconfig", kubeconfig, "--namespace", ns, "--count",
                        str(args.count), "--workers", str(args.workers), "--samples",
                        str(args.samples)]
    server0 = server.ns()
    t0 = time.monotonic()
    # stdin stays open: the protocol lets a program end at its EOF.
    proc = subprocess.Popen(argv, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                            stdin=subprocess.PIPE)
    rec: dict = {"adapter": a.name, "round": rnd}
    killer = threading.Timer(args.timeout, proc.kill)
    killer.start()
    stderr = ""
    try:
        assert proc.stdout is not None
        for line in proc.stdout:
            msg = json.loads(line) if line.startswith("{") else {}
            phase = msg.get("phase")
            if phase == "converged":
                rec["converge_ms"] = (time.monotonic() - t0) * 1000
                rec["converge_server_cpu_ms"] = (server.ns() - server0) / 1e6
                # The applies of the convergence change the owned ConfigMaps, which queue
                # their Echoes once more: the latency is measured once that has settled.
                time.sleep(args.settle_ms / 1000)
                # One change at a time: latency, not throughput.
                for i in range(args.samples):
                    proxy.patch_echo(ns, f"echo-{i % args.count}", f"changed-{rnd}-{i}")
                    time.sleep(args.spacing_ms / 1000)
            elif phase == "latency":
                us = sorted(msg["us"])
                rec["latency_p50_ms"] = statistics.median(us) / 1000
                rec["latency_p99_ms"] = us[min(len(us) - 1, int(len(us) * 0.99))] / 1000
                proc.send_signal(signal.SIGTERM)
            elif phase == "done":
                rec.update({k: msg[k] for k in ("cpu_ms", "rss_kb", "hwm_kb", "reconciles")})
        stderr = proc.stderr.read() if proc.stderr else ""
        proc.wait()
    finally:
        killer.cancel()
        # Waited for: the garbage collector and namespace controller deleting 2,000 objects
        # would otherwise load the control plane during the next adapter's run.
        subprocess.run(["kubectl", "--kubeconfig", kubeconfig, "delete", "namespace", ns,
                        "--timeout=180s"], capture_output=True)
    missing = [k for k in ("converge_ms", "latency_p50_ms", "cpu_ms") if k not in rec]
    if proc.returncode != 0 or missing:
        sys.exit(f"controller.py: {a.name} failed (exit {proc.returncode}, missing "
                 f"{missing}):\n{stderr[-4000:]}")
    rec["reconciles_per_s"] = args.count / (rec["converge_ms"] / 1000)
    return rec


def median(records: list[dict], adapter: str, key: str) -> float | None:
    vs = [r[key] for r in records if r["adapter"] == adapter and key in r]
    return statistics.median(vs) if vs else None


def ratio(records: list[dict], key: str, base: str, other: str) -> float | None:
    """kubex's value over the peer's, per round, median over rounds."""
    rs = []
    for rnd in {r["round"] for r in records}:
        a = [r[key] for r in records if r["round"] == rnd and r["adapter"] == base]
        b = [r[key] for r in records if r["round"] == rnd and r["adapter"] == other]
        if a and b and b[0]:
            rs.append(a[0] / b[0])
    return statistics.median(rs) if rs else None


def fmt(v: float | None, digits: int = 0) -> str:
    return "—" if v is None else f"{v:,.{digits}f}"


def write_report(out: Path, records: list[dict], names: list[str], env: dict[str, str],
                 args) -> None:
    rounds = len({r["round"] for r in records})
    lines = [
        "# Controller benchmark: reconcile throughput, latency, CPU and memory", "",
        f"{args.count:,} Echo custom resources reconciled into owned ConfigMaps by server-side "
        f"apply, {args.workers} concurrent reconciles, then {args.samples} changes "
        f"{args.spacing_ms} ms apart; medians over {rounds} rounds, one fresh process per "
        "adapter and round. Ratios are kubex against the peer within a round, median over "
        "rounds. Method: `benchmarks/suite/controller.py`'s docstring.", "",
        "| | |", "|---|---|",
    ] + [f"| {k} | {v} |" for k, v in env.items()] + [
        "", "| adapter | converge ms | reconciles/s | server CPU ms | latency p50 ms | "
        "p99 ms | process CPU ms | RSS MB | peak RSS MB |",
        "|---|---:|---:|---:|---:|---:|---:|---:|---:|",
    ]
    for a in names:
        lines.append(
            f"| {a} | {fmt(median(records, a, 'converge_ms'))} | "
            f"{fmt(median(records, a, 'reconciles_per_s'))} | "
            f"{fmt(median(records, a, 'converge_server_cpu_ms'))} | "
            f"{fmt(median(records, a, 'latency_p50_ms'), 1)} | "
            f"{fmt(median(records, a, 'latency_p99_ms'), 1)} | "
            f"{fmt(median(records, a, 'cpu_ms'))} | "
            f"{fmt((median(records, a, 'rss_kb') or 0) / 1024, 1)} | "
            f"{fmt((median(records, a, 'hwm_kb') or 0) / 1024, 1)} |")
    lines += ["", "## kubex against each peer (targets: throughput ≥ 1×, memory ≤ 0.5×)", "",
              "| peer | throughput × | p50 latency × | process CPU × | RSS × | peak RSS × |",
              "|---|---:|---:|---:|---:|---:|"]
    for peer in names:
        if peer == "kubex" or "kubex" not in names:
            continue
        lines.append(f"| {peer} | " + " | ".join(
            fmt(ratio(records, key, "kubex", peer), 2)
            for key in ("reconciles_per_s", "latency_p50_ms", "cpu_ms", "rss_kb", "hwm_kb"))
            + " |")
    (out / "report.md").write_text("\n".join(lines) + "\n")


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--build-dir", type=Path, default=ROOT / "build" / "bench")
    ap.add_argument("--out", type=Path, default=ROOT / "benchmarks" / "controller")
    ap.add_argument("--adapters", default="kubex,controller-runtime,kube-rs")
    ap.add_argument("--rounds", type=int, default=3)
    ap.add_argument("--count", type=int, default=1000)
    ap.add_argument("--workers", type=int, default=4)
    ap.add_argument("--samples", type=int, default=100)
    ap.add_argument("--spacing-ms", type=int, default=50)
    ap.add_argument("--settle-ms", type=int, default=5000,
                    help="wait after converged before the latency samples")
    ap.add_argument("--seed", type=int, default=1, help="of the per-round adapter order")
    ap.add_argument("--no-pin", action="store_true")
    ap.add_argument("--timeout", type=float, default=600)
    ap.add_argument("--setup-only", action="store_true")
    args = ap.parse_args()
    wanted = args.adapters.split(",")
    selected = [a for a in adapters(args.build_dir.resolve()) if a.name in wanted]
    if len(selected) != len(wanted):
        ap.error(f"unknown adapters in {args.adapters}")
    set_up(selected)
    if args.setup_only:
        return 0
    kubeconfig = os.environ.get("KUBEX_TESTENV_KUBECONFIG", "")
    testenv_dir = os.environ.get("KUBEX_TESTENV_DIR", "")
    testenv_bin = os.environ.get("KUBEX_TESTENV_BIN", "")
    if not (kubeconfig and testenv_dir and testenv_bin):
        ap.error("run under scripts/with-testenv.sh (KUBEX_TESTENV_* are not set)")
    command_line = " ".join(sys.argv)
    started = time.monotonic()
    kubectl(kubeconfig, "apply", "-f", str(CRD))
    kubectl(kubeconfig, "wait", "--for=condition=Established", "--timeout=60s",
            "crd/echoes.bench.kubex.dev")
    version = subprocess.run([testenv_bin, "version"], capture_output=True, text=True).stdout
    server = suite.ServerCpu(testenv_dir)
    pinning = suite.Pinning(testenv_dir, not args.no_pin)
    proxy = Proxy(kubeconfig)
    records: list[dict] = []
    rng = random.Random(args.seed)
    try:
        for rnd in range(1, args.rounds + 1):
            order = selected[:]
            rng.shuffle(order)
            for a in order:
                rec = run_one(a, args, kubeconfig, server, proxy, rnd)
                records.append(rec)
                print(f"round {rnd} {a.name:<20} " + " ".join(
                    f"{k}={rec[k]:,.1f}" for k in ("converge_ms", "reconciles_per_s",
                                                   "latency_p50_ms", "latency_p99_ms",
                                                   "cpu_ms", "hwm_kb") if k in rec),
                    flush=True)
    finally:
        proxy.close()
        pinning.undo()
    env = {
        "date": time.strftime("%Y-%m-%d %H:%M UTC", time.gmtime()),
        "machine": suite.environment(argparse.Namespace(command_line=command_line,
                                                        library_defaults=False),
                                     version.strip(), pinning.text)["machine"],
        "kubex": subprocess.run(["git", "rev-parse", "--short", "HEAD"], capture_output=True,
                                text=True, cwd=ROOT).stdout.strip(),
        "kube-apiserver": version.strip(),
        "peers": "; ".join(a.label for a in selected),
        "pinning": pinning.text,
        "command": command_line,
    }
    args.out.mkdir(parents=True, exist_ok=True)
    with open(args.out / "results.jsonl", "w") as f:
        for r in records:
            f.write(json.dumps(r) + "\n")
    write_report(args.out, records, [a.name for a in selected], env, args)
    print(f"==> controller benchmark done in {time.monotonic() - started:.0f} s: "
          f"{args.out / 'report.md'}", flush=True)
    print((args.out / "report.md").read_text(), flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
