#!/usr/bin/env python3
# SPDX-License-Identifier: Apache-2.0
"""The runtime benchmark: kubex's reflector and watch beside client-go's shared informer and
kube-rs's reflector, on one testenv, in the same run.

    scripts/with-testenv.sh --feature-gates=APIResponseCompression=false --nodes 12 -- \\
        python3 benchmarks/suite/runtime.py --build-dir build/bench --out benchmarks/runtime

(scripts/run.sh runs it as its runtime pass.) It seeds a namespace with --pods pods (default
10,000: twelve simulated nodes of 1,000 pods each run them, so each carries a kubelet-written status and its
managedFields), then, per round and in a shuffled adapter order, one fresh process each:

    reflector_sync     start to synced (the store holds every pod): wall time, client CPU and
                       the control plane's CPU, by paged LIST (page size 500 everywhere) and by
                       WatchList (sendInitialEvents)
    reflector_memory   after syncing, held 2 s: RSS above the baseline (the process after its
                       client's first request) and heap bytes per cached pod; as they come (the
                       LIST run above), with managedFields dropped by each library's transform
                       hook, and metadata-only
    watch_throughput   `testenv churn` modifies the pods --events times, then a typed watch from
                       the resourceVersion before the first change reads them back from the
                       apiserver's watch cache: events per second, client CPU per event

Heap bytes: glibc's mallinfo2 (in-use chunks plus mmapped blocks) for kubex and kube-rs, which
both allocate through glibc malloc; Go's runtime.MemStats.HeapAlloc after a forced collection
for client-go. Each adapter prints {"phase":"loop"} and {"phase":"done"} around the measured
part, where the driver reads the control plane's CPU (kube-apiserver and testenv's process).
A run fails when an adapter reports fewer objects or events than expected.
"""

from __future__ import annotations

import argparse
import csv
import json
import os
import random
import statistics
import subprocess
import sys
import threading
import time
from dataclasses import dataclass
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
import run as suite  # noqa: E402  (the suite's pinning, server CPU, peers' cache)

ROOT = suite.ROOT
ADAPTERS_DIR = ROOT / "benchmarks" / "suite" / "adapters"


@dataclass
class Adapter:
    name: str
    label: str
    command: list[str]
    setup: list[str]


def adapters(build_dir: Path) -> list[Adapter]:
    cache = suite.cache_dir()
    return [
        Adapter("kubex", "kubex: runtime::Reflector / Api::watch (watches over HTTP/2)",
                [str(build_dir / "benchmarks" / "suite" / "kubex-bench-kubex-runtime")], []),
        Adapter("kubex-h1", "kubex with everything over HTTP/1.1",
                [str(build_dir / "benchmarks" / "suite" / "kubex-bench-kubex-runtime"),
                 "--http", "1.1", "--name", "kubex-h1"], []),
        Adapter("client-go", "client-go v0.35.4: SharedIndexInformer / Watch (JSON, HTTP/2)",
                [str(cache / "client-go" / "bench-client-go-runtime"), "--encoding", "json"],
                ["bash", str(ADAPTERS_DIR / "client-go" / "setup.sh")]),
        Adapter("client-go-proto", "client-go v0.35.4 as it comes: protobuf, HTTP/2",
                [str(cache / "client-go" / "bench-client-go-runtime"), "--encoding", "protobuf"],
                ["bash", str(ADAPTERS_DIR / "client-go" / "setup.sh")]),
        Adapter("kube-rs", "kube 5.0.0: kube-runtime reflector / Api::watch (HTTP/1.1)",
                [str(cache / "kube-rs" / "target" / "release" / "kube-rs-runtime")],
                ["bash", str(ADAPTERS_DIR / "kube-rs" / "setup.sh")]),
    ]


@dataclass
class Run:
    name: str
    scenario: str
    extra: dict[str, str]


RUNS = [
    Run("sync_list", "reflector", {"initial": "list", "variant": "full"}),
    Run("sync_watch_list", "reflector", {"initial": "watch_list", "variant": "full"}),
    Run("memory_no_managed_fields", "reflector", {"initial": "list",
                                                   "variant": "no_managed_fields"}),
    Run("memory_metadata", "reflector", {"initial": "list", "variant": "metadata"}),
    Run("watch_throughput", "watch_throughput", {}),
]


def set_up(selected: list[Adapter]) -> None:
    peers = [suite.Peer(suite.Adapter(a.name, a.label, a.command, None), a.setup,
                        Path(a.setup[1]).parent) for a in selected if a.setup]
    suite.set_up_peers(peers)


def run_one(adapter: Adapter, run: Run, args, kubeconfig: str, server: suite.ServerCpu,
            extra: dict[str, str]) -> dict:
    argv = adapter.command + ["--kubeconfig", kubeconfig, "--namespace", args.namespace,
                              "--scenario", run.scenario]
    for k, v in {**run.extra, **extra}.items():
        argv += [f"--{k}", v]
    proc = subprocess.Popen(argv, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                            stdin=subprocess.DEVNULL)
    marks: dict[str, float | None] = {}
    result = None
    # An adapter that never sees every object would wait for ever.
    killer = threading.Timer(args.timeout, proc.kill)
    killer.start()
    try:
        assert proc.stdout is not None
        for line in proc.stdout:
            line = line.strip()
            if line.startswith('{"phase":'):
                marks[json.loads(line)["phase"]] = server.ns()
            elif line.startswith("{"):
                result = json.loads(line)
        stderr = proc.stderr.read() if proc.stderr else ""
        proc.wait()
    finally:
        killer.cancel()
    if proc.returncode != 0 or result is None:
        why = f"killed after {args.timeout} s" if proc.returncode == -9 else \
            f"exit {proc.returncode}"
        sys.exit(f"runtime.py: {adapter.name} {run.name} failed ({why}):\n{stderr[-4000:]}")
    start, end = marks.get("loop"), marks.get("done")
    if start is not None and end is not None:
        result["server_cpu_ms"] = (end - start) / 1e6
    result["adapter"], result["run"] = adapter.name, run.name
    return result


def validate(rec: dict, expect: int) -> None:
    got = rec.get("objects", rec.get("events"))
    if got != expect:
        sys.exit(f"runtime.py: {rec['adapter']} {rec['run']} saw {got}, not {expect}")


def median(records: list[dict], adapter: str, run: str, key: str) -> float | None:
    values = [r[key] for r in records if r["adapter"] == adapter and r["run"] == run
              and r.get(key) is not None]
    return statistics.median(values) if values else None


def ratio_of_rounds(records: list[dict], run: str, key: str, base: str, other: str,
                    per: str = "") -> float | None:
    """The median over rounds of base/other, each taken within one round."""
    ratios = []
    for rnd in sorted({r["round"] for r in records}):
        def value(name: str) -> float | None:
            for r in records:
                if r["round"] == rnd and r["adapter"] == name and r["run"] == run:
                    return r[key] / (r[per] if per else 1)
            return None
        a, b = value(base), value(other)
        if a is not None and b:
            ratios.append(a / b)
    return statistics.median(ratios) if ratios else None


def fmt(v: float | None, digits: int = 0) -> str:
    return "–" if v is None else f"{v:,.{digits}f}"


def write_report(out: Path, records: list[dict], names: list[str], env: dict[str, str],
                 pods: int, events: int) -> None:
    def m(a: str, run: str, key: str, scale: float = 1.0) -> float | None:
        v = median(records, a, run, key)
        return None if v is None else v * scale

    lines = [
        "# Runtime benchmark: reflector and watch",
        "",
        f"{pods:,} pods seeded on testenv's simulated nodes (each with the kubelet's status and "
        f"managedFields); medians over {len({r['round'] for r in records})} rounds, one fresh "
        "process per adapter, run and round. Ratios are kubex against the peer, taken within a "
        "round, median over rounds. Method: `benchmarks/suite/runtime.py`'s docstring.",
        "",
        "| | |", "|---|---|",
    ] + [f"| {k} | {v} |" for k, v in env.items()] + [
        "",
        "## reflector_sync: start to synced",
        "",
        "| adapter | LIST: wall ms | client CPU ms | server CPU ms | WatchList: wall ms | "
        "client CPU ms | server CPU ms |",
        "|---|---:|---:|---:|---:|---:|---:|",
    ]
    for a in names:
        lines.append(f"| {a} | " + " | ".join(
            fmt(m(a, run, key)) for run in ("sync_list", "sync_watch_list")
            for key in ("sync_ms", "sync_cpu_ms", "server_cpu_ms")) + " |")
    lines += ["", "## reflector_memory: after syncing, held 2 s", "",
              "| adapter | as they come: heap B/pod | RSS above baseline MB | no managedFields: "
              "heap B/pod | RSS MB | metadata-only: heap B/pod | RSS MB |",
              "|---|---:|---:|---:|---:|---:|---:|"]
    for a in names:
        cells = []
        for run in ("sync_list", "memory_no_managed_fields", "memory_metadata"):
            cells.append(fmt(m(a, run, "heap_delta_bytes", 1 / pods)))
            cells.append(fmt(m(a, run, "rss_delta_kb", 1 / 1024), 1))
        lines.append(f"| {a} | " + " | ".join(cells) + " |")
    lines += ["", f"## watch_throughput: {events:,} MODIFIED events from the watch cache", "",
              "| adapter | events/s | client CPU µs/event | wall ms | server CPU ms |",
              "|---|---:|---:|---:|---:|"]
    for a in names:
        wall, cpu = m(a, "watch_throughput", "wall_ms"), m(a, "watch_throughput", "cpu_ms")
        lines.append(f"| {a} | {fmt(events / wall * 1e3 if wall else None)} | "
                     f"{fmt(cpu * 1e3 / events if cpu is not None else None, 1)} | {fmt(wall)} | "
                     f"{fmt(m(a, 'watch_throughput', 'server_cpu_ms'))} |")

    lines += ["", "## Ratios and targets", "",
              "Targets (issue 18) are against client-go with JSON, like for like; the "
              "protobuf column is client-go as it comes, for reference.", "",
              "| measure | kubex / client-go | kubex / kube-rs | kubex / client-go-proto | "
              "target | met |",
              "|---|---:|---:|---:|---|---|"]

    def row(label: str, run: str, key: str, target: tuple[float | None, float | None]) -> None:
        go = ratio_of_rounds(records, run, key, "kubex", "client-go")
        rs = ratio_of_rounds(records, run, key, "kubex", "kube-rs")
        proto = ratio_of_rounds(records, run, key, "kubex", "client-go-proto")
        met = []
        for r, t in ((go, target[0]), (rs, target[1])):
            if t is not None:
                met.append("?" if r is None else ("yes" if r <= t else "**no**"))
        tt = " and ".join(f"≤ {t} × {p}" for t, p in zip(target, ("client-go", "kube-rs"))
                          if t is not None) or "–"
        lines.append(f"| {label} | {fmt(go, 2)} | {fmt(rs, 2)} | {fmt(proto, 2)} | {tt} | "
                     f"{', '.join(met) or '–'} |")

    row("heap bytes per pod, as they come", "sync_list", "heap_delta_bytes", (0.5, 0.7))
    row("heap bytes per pod, no managedFields", "memory_no_managed_fields", "heap_delta_bytes",
        (0.5, 0.7))
    row("heap bytes per pod, metadata-only", "memory_metadata", "heap_delta_bytes", (0.5, 0.7))
    row("RSS above baseline, as they come", "sync_list", "rss_delta_kb", (None, None))
    row("sync wall time, LIST", "sync_list", "sync_ms", (1.0, 1.0))
    row("sync wall time, WatchList", "sync_watch_list", "sync_ms", (1.0, 1.0))
    row("sync client CPU, LIST", "sync_list", "sync_cpu_ms", (None, None))
    row("sync client CPU, WatchList", "sync_watch_list", "sync_cpu_ms", (None, None))
    row("watch CPU per event", "watch_throughput", "cpu_ms", (None, 0.5))
    row("watch wall time", "watch_throughput", "wall_ms", (None, None))
    lines.append("")
    (out / "report.md").write_text("\n".join(lines))
    keys = ["round", "adapter", "run", "initial", "variant", "sync_ms", "sync_cpu_ms",
            "server_cpu_ms", "objects", "rss_baseline_kb", "rss_delta_kb", "heap_delta_bytes",
            "events", "wall_ms", "cpu_ms"]
    with open(out / "report.csv", "w", newline="") as f:
        w = csv.DictWriter(f, fieldnames=keys, extrasaction="ignore")
        w.writeheader()
        for r in records:
            w.writerow(r)


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--build-dir", type=Path, default=ROOT / "build" / "bench")
    ap.add_argument("--out", type=Path, default=ROOT / "benchmarks" / "runtime")
    ap.add_argument("--adapters", default="kubex,kubex-h1,client-go,client-go-proto,kube-rs")
    ap.add_argument("--kubex", action="append", default=[], metavar="NAME=PROGRAM",
                    help="another build of kubex-bench-kubex-runtime as row NAME (a before/after)")
    ap.add_argument("--runs", default=",".join(r.name for r in RUNS),
                    help="which of: " + ", ".join(r.name for r in RUNS))
    ap.add_argument("--rounds", type=int, default=2)
    ap.add_argument("--pods", type=int, default=10000)
    ap.add_argument("--events", type=int, default=10000, help="modifications in watch_throughput")
    ap.add_argument("--namespace", help="an already seeded namespace (default: a new one)")
    ap.add_argument("--seed", type=int, default=1, help="of the per-round adapter order")
    ap.add_argument("--no-pin", action="store_true")
    ap.add_argument("--timeout", type=float, default=600,
                    help="seconds one adapter process may take (default 600)")
    ap.add_argument("--setup-only", action="store_true")
    args = ap.parse_args()
    wanted = args.adapters.split(",")
    known = adapters(args.build_dir.resolve())
    for spec in args.kubex:
        name, _, program = spec.partition("=")
        known.append(Adapter(name, f"kubex built as {program}",
                             [program, "--name", name], []))
        wanted.append(name)
    selected = [a for a in known if a.name in wanted]
    if len(selected) != len(wanted):
        ap.error(f"unknown adapters in {args.adapters}")
    runs = [r for r in RUNS if r.name in args.runs.split(",")]
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
    if not args.namespace:
        args.namespace = f"runtime-{random.SystemRandom().getrandbits(32):08x}"
        print(f"==> seeding {args.namespace} with {args.pods} pods", flush=True)
        subprocess.run([testenv_bin, "seed", "--kubeconfig", kubeconfig, "--namespace",
                        args.namespace, "--pods", str(args.pods), "--log-emitter=false",
                        "--timeout", "15m"], check=True)
    version = subprocess.run([testenv_bin, "version"], capture_output=True, text=True).stdout
    server = suite.ServerCpu(testenv_dir)
    pinning = suite.Pinning(testenv_dir, not args.no_pin)
    records: list[dict] = []
    rng = random.Random(args.seed)
    try:
        for rnd in range(1, args.rounds + 1):
            for run in runs:
                order = selected[:]
                rng.shuffle(order)
                for a in order:
                    extra = {"expect": str(args.pods)}
                    if run.scenario == "watch_throughput":
                        churn = subprocess.run(
                            [testenv_bin, "churn", "--kubeconfig", kubeconfig, "--namespace",
                             args.namespace, "--count", str(args.events)],
                            check=True, capture_output=True, text=True)
                        before = json.loads(churn.stdout.strip().splitlines()[-1])
                        extra = {"expect": str(args.events),
                                 "resource-version": before["resourceVersion"]}
                    rec = run_one(a, run, args, kubeconfig, server, extra)
                    rec["round"] = rnd
                    validate(rec, int(extra["expect"]))
                    records.append(rec)
                    shown = {k: rec[k] for k in ("sync_ms", "sync_cpu_ms", "heap_delta_bytes",
                                                 "rss_delta_kb", "wall_ms", "cpu_ms",
                                                 "server_cpu_ms") if k in rec}
                    print(f"round {rnd} {run.name:<26} {a.name:<10} "
                          + " ".join(f"{k}={v:,.0f}" for k, v in shown.items()), flush=True)
    finally:
        pinning.undo()
    env = {
        "date": time.strftime("%Y-%m-%d %H:%M UTC", time.gmtime()),
        "machine": suite.environment(argparse.Namespace(command_line=command_line,
                                                        library_defaults=False),
                                     version.strip(), pinning.text)["machine"],
        "kubex": subprocess.run(["git", "rev-parse", "--short", "HEAD"], capture_output=True,
                                text=True, cwd=ROOT).stdout.strip()
        + (" (modified)" if subprocess.run(
            ["git", "status", "--porcelain", "--untracked-files=no", "--", ".",
             ":(exclude)benchmarks/runtime", ":(exclude)benchmarks/report.md",
             ":(exclude)benchmarks/report.csv", ":(exclude)benchmarks/charts",
             ":(exclude)benchmarks/defaults"], capture_output=True, text=True,
            cwd=ROOT).stdout.strip() else ""),
        "kube-apiserver": version.strip(),
        "peers": "; ".join(a.label for a in selected),
        "pinning": pinning.text,
        "command": command_line,
    }
    args.out.mkdir(parents=True, exist_ok=True)
    with open(args.out / "results.jsonl", "w") as f:
        for r in records:
            f.write(json.dumps(r) + "\n")
    write_report(args.out, records, [a.name for a in selected], env, args.pods, args.events)
    print(f"==> runtime benchmark done in {time.monotonic() - started:.0f} s: "
          f"{args.out / 'report.md'}", flush=True)
    print((args.out / "report.md").read_text(), flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
