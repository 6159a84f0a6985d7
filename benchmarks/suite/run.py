#!/usr/bin/env python3
# SPDX-License-Identifier: Apache-2.0
"""The benchmark suite's driver: runs every (adapter, scenario) in a fresh process against a
running testenv, checks what each saw, and writes the report.

Run it through scripts/run.sh (which builds the adapters, starts the control plane with
server-side compression off and seeds it); by hand:

    scripts/with-testenv.sh --feature-gates=APIResponseCompression=false -- \\
        python3 benchmarks/suite/run.py --build-dir build/bench --out benchmarks

Each adapter process prints one JSON line (benchmarks/suite/common/measure.hpp writes it for
the C++ ones):
    adapter, variant, scenario, http, accept_encoding   strings
    n, warmup            measured and warm-up iterations
    samples_ns           wall time of each measured iteration
    items                what each iteration saw (items, events, lines; -1 = not counted)
    events_ns            per-event gaps (watch_n_events, logs) or latencies (watch_live)
    cpu_ns, loop_ns      client CPU (user+system, all threads) and wall over the loop
    rss_ready_kb         RSS after set-up; rss_peak_loop_kb: peak RSS during the loop
    rss_ready_anon_kb    anonymous RSS after set-up; rss_done_file_kb: file-backed and shared
                         RSS at the end of the loop (so anonymous growth leaves out code pages)
    connections_opened, retries, bytes_per_op   when the adapter knows them
Before and after the measured loop it prints {"phase":"loop"} and {"phase":"done"}: the driver
reads the control plane's CPU time (kube-apiserver, and testenv's own process, which runs etcd
and the simulated kubelets) at those two moments and adds server_cpu_ns, and the share of it
the control plane spends when no client calls (server_idle_ns, measured before the first run).

Percentiles are nearest-rank. Ratios are taken within a round (an adapter against L1 or
against kubex measured in the same round), then summarised as the median over rounds.
Only the Python standard library is used, except matplotlib for the charts (optional).
"""

from __future__ import annotations

import argparse
import csv
import datetime as dt
import json
import math
import os
import platform
import random
import shlex
import shutil
import statistics
import subprocess
import sys
import tempfile
import threading
import time
from dataclasses import dataclass, field
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]


@dataclass(frozen=True)
class Scenario:
    name: str
    description: str
    expect: int | None  # items/events/lines each iteration must see; None: at least one
    warmup: int
    iters: int
    list_size: int = 0
    stream_count: int = 0
    streaming: bool = False


# Names and sizes as in Kubex's harness; iteration counts from the method (enough samples for
# p95/p99 to mean something), capped per process by --max-seconds.
SCENARIOS = [
    Scenario("single_get", "GET one pod (seed-0), typed", 1, 30, 300),
    Scenario("single_get_metadata", "GET one pod as PartialObjectMetadata", 1, 30, 300),
    Scenario("single_create_delete", "create a pod, then delete it with grace 0", 1, 10, 150),
    Scenario("list_small", "list pods, limit=10", 10, 15, 300, list_size=10),
    Scenario("list_medium", "list pods, limit=100", 100, 5, 150, list_size=100),
    Scenario("list_large", "list pods, limit=500", 500, 3, 60, list_size=500),
    Scenario("list_metadata_only", "list pods as PartialObjectMetadataList, limit=100", 100, 10,
             200, list_size=100),
    Scenario("list_namespaces", "list all namespaces", None, 15, 300),
    Scenario("watch_n_events",
             "Kubex's semantics: watch without resourceVersion until 50 events, while 25 "
             "create+delete pairs run after 50 ms; ends when both are done. Events are the "
             "replay of existing pods, so per-event figures are decode gaps",
             50, 1, 8, stream_count=50, streaming=True),
    Scenario("watch_live",
             "watch from a list's resourceVersion, only the burst's pods: 25 create+delete "
             "pairs give 25 ADDED + 25 DELETED events; per-event latency from the request "
             "that caused it", 50, 1, 8, streaming=True),
    Scenario("stream_logs_n_lines", "follow log-emitter's log until 500 lines", 500, 1, 15,
             stream_count=500, streaming=True),
]
# Measured iterations a process makes even past --max-seconds: enough for p95 to mean
# something in request scenarios, and the method's minimum for streaming ones.
MIN_ITERS_REQUEST = 30
MIN_ITERS_STREAMING = 5
SCENARIO_BY_NAME = {s.name: s for s in SCENARIOS}


@dataclass
class Adapter:
    name: str
    label: str  # what the report calls it
    command: list[str]  # the program; scenario options are appended
    scenarios: set[str] | None = None  # None: every scenario
    limit: bool = False  # a physical limit (L1, L2), not a client
    # Environment for the memory pass (e.g. LD_PRELOAD of common/alloc_shim.c); None: the
    # adapter has no memory pass.
    memory_env: dict[str, str] | None = None
    # How the memory pass counts this adapter's allocations (the report says it).
    memory_method: str = "malloc shim"
    # Why the library opens connections within a request loop as it comes (client-node builds
    # a new HTTP agent for every call): then they are counted and shown, not a validity failure.
    reconnects: str = ""


def alloc_shim(build_dir: Path) -> Path:
    """common/alloc_shim.c, built with the C++ adapters."""
    return build_dir / "benchmarks" / "suite" / "libkubex_bench_alloc.so"


def cpp_adapters(build_dir: Path, kubeconfig: str, target: dict[str, str]) -> list[Adapter]:
    suite = build_dir / "benchmarks" / "suite"
    shim = {"LD_PRELOAD": str(alloc_shim(build_dir))}
    raw = [str(suite / "kubex-bench-raw"), "--server", target["server"], "--ca-file",
           target["ca_file"], "--token-file", target["token_file"]]
    return [
        Adapter("L1", "L1 (raw TLS, no decoding)", raw, limit=True, memory_env=shim),
        Adapter("L2", "L2 (L1 + simdjson walk)", raw + ["--decode", "on"], limit=True,
                memory_env=shim),
        Adapter("kubex", "kubex (C++, typed)",
                [str(suite / "kubex-bench-kubex"), "--kubeconfig", kubeconfig],
                memory_env=shim),
        Adapter("kubex-h1", "kubex (C++, typed, HTTP/1.1 only)",
                [str(suite / "kubex-bench-kubex"), "--kubeconfig", kubeconfig, "--http", "1.1"],
                memory_env=shim),
        Adapter("kubex-h2", "kubex (C++, typed, HTTP/2)",
                [str(suite / "kubex-bench-kubex"), "--kubeconfig", kubeconfig, "--http", "2"],
                memory_env=shim),
        Adapter("kubex-proto", "kubex (C++, typed, protobuf)",
                [str(suite / "kubex-bench-kubex"), "--kubeconfig", kubeconfig, "--encoding",
                 "protobuf"],
                memory_env=shim),
    ]


def cache_dir() -> Path:
    """Where peers' environments and builds live: outside the repository, kept across runs."""
    base = os.environ.get("KUBEX_BENCH_CACHE") or os.path.join(
        os.environ.get("XDG_CACHE_HOME") or os.path.expanduser("~/.cache"), "kubex-bench")
    return Path(base)


@dataclass
class Peer:
    """A peer adapter declared by benchmarks/suite/adapters/<dir>/adapters.json: a list of
    {"name", "label", "setup": [argv], "command": [argv], "scenarios": [names] | null,
    "memory_env": {name: value} | absent, "memory_method": text, "reconnects": why | absent}.
    In setup, command and memory_env, {cache} is the cache directory, {dir} the adapter's
    folder, {kubeconfig} the kubeconfig and {alloc_shim} the allocation counter
    (common/alloc_shim.c). setup runs once
    per run (cwd = the folder) and must be idempotent: it installs the pinned packages and
    builds the program."""
    adapter: Adapter
    setup: list[str]
    folder: Path


def peer_adapters(kubeconfig: str, build_dir: Path) -> list[Peer]:
    peers = []
    for spec_file in sorted((ROOT / "benchmarks" / "suite" / "adapters").glob("*/adapters.json")):
        folder = spec_file.parent
        subst = {"{cache}": str(cache_dir()), "{dir}": str(folder), "{kubeconfig}": kubeconfig,
                 "{alloc_shim}": str(alloc_shim(build_dir))}

        def expand(argv: list[str]) -> list[str]:
            out = []
            for a in argv:
                for k, v in subst.items():
                    a = a.replace(k, v)
                out.append(a)
            return out
        for spec in json.loads(spec_file.read_text()):
            scenarios = spec.get("scenarios")
            memory_env = spec.get("memory_env")
            adapter = Adapter(spec["name"], spec["label"], expand(spec["command"]),
                              set(scenarios) if scenarios is not None else None,
                              reconnects=spec.get("reconnects", ""))
            if memory_env is not None:
                adapter.memory_env = dict(zip(memory_env, expand(list(memory_env.values()))))
                adapter.memory_method = spec.get("memory_method", adapter.memory_method)
            peers.append(Peer(adapter, expand(spec.get("setup", [])), folder))
    return peers


def set_up_peers(peers: list[Peer]) -> None:
    """Runs each distinct set-up once, all at the same time: each builds with one job (Go -p 1,
    cargo -j 1) or mostly downloads, so side by side they fill the machine's cores instead of
    leaving one idle. Each one's output is printed when it ends; any failure fails the call."""
    import fcntl
    cache_dir().mkdir(parents=True, exist_ok=True)
    # Runs from two clones at once (a test run beside a benchmark) would build the same venvs
    # and binaries in the shared cache: one sets up at a time.
    with open(cache_dir() / ".setup.lock", "w") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)
        unique: dict[tuple[str, ...], Peer] = {}
        for p in peers:
            if p.setup:
                unique.setdefault(tuple(p.setup), p)
        env = dict(os.environ, KUBEX_BENCH_CACHE=str(cache_dir()))
        running = []
        for p in unique.values():
            print(f"==> setting up {p.folder.name} ({' '.join(p.setup)})", flush=True)
            out = tempfile.TemporaryFile(mode="w+")
            proc = subprocess.Popen(p.setup, cwd=p.folder, env=env, stdout=out,
                                    stderr=subprocess.STDOUT, stdin=subprocess.DEVNULL)
            running.append((p, proc, out, time.monotonic()))
        failed = []
        while running:
            time.sleep(0.2)
            for entry in [e for e in running if e[1].poll() is not None]:
                running.remove(entry)
                p, proc, out, started = entry
                out.seek(0)
                text = out.read()
                out.close()
                status = "done" if proc.returncode == 0 else f"FAILED (exit {proc.returncode})"
                print(f"==> {p.folder.name} set-up {status} in {time.monotonic() - started:.0f} s",
                      flush=True)
                if text:
                    print(text, end="" if text.endswith("\n") else "\n", flush=True)
                if proc.returncode != 0:
                    failed.append(p.folder.name)
        if failed:
            sys.exit(f"run.py: the set-up of {', '.join(failed)} failed (its output is above)")


def setup_only(args, ap: argparse.ArgumentParser) -> int:
    """Runs every selected peer's set-up, as a full run would before measuring."""
    peers = peer_adapters("", args.build_dir.resolve())
    if args.adapters:
        wanted = set(args.adapters.split(","))
        ours = cpp_adapters(args.build_dir.resolve(), "",
                            {"server": "", "ca_file": "", "token_file": ""})
        known = {p.adapter.name for p in peers} | {a.name for a in ours}
        if wanted - known:
            ap.error(f"unknown adapters: {', '.join(sorted(wanted - known))}")
        peers = [p for p in peers if p.adapter.name in wanted]
    started = time.monotonic()
    set_up_peers(peers)
    print(f"==> peers set up in {time.monotonic() - started:.0f} s", flush=True)
    return 0


def connection_target(kubeconfig: str, secrets_dir: Path) -> dict[str, str]:
    """Server, CA file and a token file for the raw programs, from the kubeconfig's current
    context (kubectl reads it, so no YAML parser is needed). The token goes to a 0600 file."""
    raw = subprocess.run(
        ["kubectl", "--kubeconfig", kubeconfig, "config", "view", "--raw", "--minify", "-o",
         "json"], check=True, capture_output=True, text=True).stdout
    cfg = json.loads(raw)
    cluster = cfg["clusters"][0]["cluster"]
    user = cfg["users"][0]["user"]
    if "token" not in user:
        sys.exit("run.py: the kubeconfig's current user has no bearer token; the raw limit "
                 "programs need one (testenv's admin context has it)")
    ca_file = secrets_dir / "ca.crt"
    if "certificate-authority-data" in cluster:
        import base64
        ca_file.write_bytes(base64.b64decode(cluster["certificate-authority-data"]))
    else:
        shutil.copy(cluster["certificate-authority"], ca_file)
    token_file = secrets_dir / "token"
    fd = os.open(token_file, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
    with os.fdopen(fd, "w") as f:
        f.write(user["token"] + "\n")
    return {"server": cluster["server"], "ca_file": str(ca_file), "token_file": str(token_file),
            "token": user["token"]}


def testenv_root(testenv_dir: str) -> int:
    """The pid of testenv's own process (env.json), the root of the control plane's tree."""
    return int(json.loads((Path(testenv_dir) / "env.json").read_text())["pid"])


def process_tree(root: int) -> list[int]:
    """root and all its descendants (from /proc's parent links)."""
    children: dict[int, list[int]] = {}
    for stat in Path("/proc").glob("[0-9]*/stat"):
        try:
            text = stat.read_text()
        except OSError:
            continue
        # "pid (comm) state ppid ...": comm may hold spaces and parentheses.
        ppid = int(text[text.rindex(")") + 2:].split()[1])
        children.setdefault(ppid, []).append(int(stat.parent.name))
    tree, pending = [], [root]
    while pending:
        pid = pending.pop()
        tree.append(pid)
        pending += children.get(pid, [])
    return tree


def set_tree_affinity(root: int, cpus: set[int]) -> int:
    """Sets the CPU affinity of every thread of root's process tree; returns how many."""
    done = 0
    for pid in process_tree(root):
        # Affinity is per thread, and the Go runtime's threads exist already.
        for task in Path(f"/proc/{pid}/task").glob("[0-9]*"):
            try:
                os.sched_setaffinity(int(task.name), cpus)
                done += 1
            except OSError:
                pass  # a thread that just ended
    return done


class Pinning:
    """Puts the control plane (the testenv process and its children: etcd, kube-apiserver,
    controller-manager, scheduler, the simulated kubelets) on the first half of the CPUs this
    process may use and the clients (this process, which starts them) on the other half, so that
    a client's CPU never competes with the server's work for its own request. undo() gives the
    control plane every CPU back (it may be shared, e.g. with the integration tests)."""

    def __init__(self, testenv_dir: str, enabled: bool) -> None:
        self.all = set(os.sched_getaffinity(0))
        self.root = 0
        cpus = sorted(self.all)
        if not enabled:
            self.text = "off (--no-pin)"
            return
        if len(cpus) < 2:
            self.text = f"off (one CPU: {cpus[0]})"
            return
        server, client = set(cpus[:len(cpus) // 2]), set(cpus[len(cpus) // 2:])
        self.root = testenv_root(testenv_dir)
        if not set_tree_affinity(self.root, server):
            sys.exit(f"run.py: found no control-plane thread to pin under pid {self.root}")
        os.sched_setaffinity(0, client)
        names = lambda c: ",".join(map(str, sorted(c)))  # noqa: E731
        self.text = f"control plane on CPU {names(server)}, clients on CPU {names(client)}"

    def undo(self) -> None:
        if self.root:
            set_tree_affinity(self.root, self.all)
            os.sched_setaffinity(0, self.all)
            self.root = 0


def percentile(sorted_values: list[float], q: float) -> float:
    """Nearest rank: the smallest value with at least q of the samples at or below it."""
    if not sorted_values:
        return math.nan
    rank = max(1, math.ceil(q * len(sorted_values)))
    return sorted_values[rank - 1]


@dataclass
class Record:
    round: int
    adapter: str
    scenario: str
    ok: bool
    data: dict = field(default_factory=dict)
    error: str = ""
    problems: list[str] = field(default_factory=list)

    @property
    def samples(self) -> list[float]:
        return sorted(self.data.get("samples_ns", []))

    def p(self, q: float) -> float:
        return percentile(self.samples, q)

    @property
    def cpu_per_op(self) -> float:
        n = self.data.get("n", 0)
        return self.data["cpu_ns"] / n if n else math.nan

    @property
    def server_cpu_per_op(self) -> float:
        """The control plane's CPU per operation, less what it spends idle over as long."""
        n = self.data.get("server_n", self.data.get("n", 0))
        if "server_cpu_ns" not in self.data or not n:
            return math.nan
        return max(0.0, self.data["server_cpu_ns"] - self.data["server_idle_ns"]) / n


def validate(rec: Record, scenario: Scenario, adapter: Adapter) -> None:
    d = rec.data
    if d.get("n", 0) < 1:
        rec.problems.append("no measured iterations")
    for seen in d.get("items", []):
        if seen == -1:
            continue
        if scenario.expect is None and seen < 1:
            rec.problems.append(f"an iteration saw {seen} items, expected at least one")
            break
        if scenario.expect is not None and seen != scenario.expect:
            rec.problems.append(f"an iteration saw {seen} items, expected {scenario.expect}")
            break
    if not scenario.streaming and d.get("connections_opened", 0) > 0 and not adapter.reconnects:
        rec.problems.append(f"{int(d['connections_opened'])} connections opened in the loop")
    if d.get("retries", 0) > 0:
        rec.problems.append(f"{int(d['retries'])} retries in the loop")


PHASE_LINE = '{"phase":'  # the adapters' loop markers; the result is the last other JSON line


def result_line(lines: list[str]) -> str | None:
    """An adapter's result among its output lines (None when it printed none)."""
    results = [ln for ln in lines if ln.startswith("{") and not ln.startswith(PHASE_LINE)]
    return results[-1] if results else None


class ServerCpu:
    """CPU time of the control plane's serving processes, from /proc: kube-apiserver and
    testenv's root process, which runs etcd and the simulated kubelets (log follows are served
    there). The controllers and the scheduler are left out. Without a testenv it counts nothing."""

    TICK_NS = 1e9 / os.sysconf("SC_CLK_TCK")

    def __init__(self, testenv_dir: str) -> None:
        self.root = 0
        self.pids: list[int] = []
        self.idle_ns_per_s = 0.0
        if testenv_dir:
            self.root = testenv_root(testenv_dir)
            self.pids = self.serving()

    def serving(self) -> list[int]:
        found = []
        for pid in process_tree(self.root):
            try:
                argv = Path(f"/proc/{pid}/cmdline").read_bytes().split(b"\0")
            except OSError:
                continue
            if pid == self.root or (len(argv) > 1 and argv[1] == b"apiserver"):
                found.append(pid)
        return found

    def ns(self) -> float | None:
        """CPU time so far (user + system, all threads); None when a process is gone (the
        apiserver restarted): the caller skips that measurement."""
        total = 0
        for pid in self.pids:
            try:
                stat = Path(f"/proc/{pid}/stat").read_text()
            except OSError:
                self.pids = self.serving()
                return None
            fields = stat[stat.rindex(")") + 2:].split()
            total += int(fields[11]) + int(fields[12])
        return total * self.TICK_NS if self.pids else None

    def measure_idle(self, seconds: float) -> None:
        """What the control plane spends per second when no client calls (lease renewals,
        controllers' resyncs reaching the apiserver), subtracted from each loop's figure."""
        start = self.ns()
        time.sleep(seconds)
        end = self.ns()
        if start is not None and end is not None:
            self.idle_ns_per_s = (end - start) / seconds


def run_one(adapter: Adapter, scenario: Scenario, args, namespace: str, round_no: int,
            secrets: list[str], memory: bool = False) -> Record:
    # The memory pass needs fewer iterations: counts per operation barely vary.
    scale = args.iters_scale * (0.2 if memory else 1.0)
    iters = max(1, round(scenario.iters * scale))
    warmup = max(1, round(scenario.warmup * scale))
    command = adapter.command + [
        "--scenario", scenario.name, "--namespace", namespace,
        "--warmup", str(warmup), "--warmup-seconds", str(args.warmup_seconds),
        "--iters", str(iters),
        "--min-iters", str(min(iters, MIN_ITERS_STREAMING if scenario.streaming else
                                MIN_ITERS_REQUEST)),
        "--max-seconds", str(args.max_seconds),
        "--list-size", str(scenario.list_size), "--stream-count", str(scenario.stream_count),
    ] + (["--library-defaults", "on"] if args.library_defaults else [])
    rec = Record(round_no, adapter.name, scenario.name, ok=False)
    env = dict(os.environ, **(adapter.memory_env or {})) if memory else None
    lines: list[str] = []
    server_cpu: ServerCpu = getattr(args, "server_cpu", None) or ServerCpu("")
    server: dict[str, float | None] = {}
    with tempfile.TemporaryFile("w+") as stderr:
        proc = subprocess.Popen(command, stdout=subprocess.PIPE, stderr=stderr, text=True,
                                env=env, cwd=ROOT)
        timer = threading.Timer(args.max_seconds * 2 + 120, proc.kill)
        timer.start()
        try:
            assert proc.stdout is not None
            for line in proc.stdout:
                if line.startswith(PHASE_LINE):
                    server[json.loads(line)["phase"]] = server_cpu.ns()
                lines.append(line)
            returncode = proc.wait()
        finally:
            killed = not timer.is_alive()
            timer.cancel()
        stderr.seek(0)
        err = stderr.read()
    if killed and returncode != 0:
        rec.error = "timed out"
        return rec
    if returncode != 0:
        rec.error = scrub(err.strip()[-600:] or f"exit {returncode}", secrets)
        return rec
    result = result_line(lines)
    if result is None:
        rec.error = "no result line"
        return rec
    rec.data = json.loads(result)
    rec.ok = True
    if server.get("loop") is not None and server.get("done") is not None:
        rec.data["server_cpu_ns"] = server["done"] - server["loop"]
        rec.data["server_idle_ns"] = server_cpu.idle_ns_per_s * rec.data.get("loop_ns", 0) / 1e9
    validate(rec, scenario, adapter)
    return rec


def scrub(text: str, secrets: list[str]) -> str:
    for s in secrets:
        if s:
            text = text.replace(s, "<redacted>")
    return text


def ms(ns: float) -> str:
    if math.isnan(ns):
        return "–"
    v = ns / 1e6
    return f"{v:.3f}" if v < 10 else f"{v:.1f}" if v < 1000 else f"{v:,.0f}"


def ratio(x: float) -> str:
    return "–" if math.isnan(x) else f"{x:.2f}×" if x < 10 else f"{x:.0f}×"


def median_of_rounds(records: list[Record], adapter: str, scenario: str, base: str,
                     metric) -> tuple[float, float, float]:
    """Median, min and max over rounds of metric(adapter)/metric(base) within each round."""
    values = []
    for r in sorted({rec.round for rec in records}):
        a = [x for x in records if x.round == r and x.adapter == adapter and x.scenario ==
             scenario and x.ok]
        b = [x for x in records if x.round == r and x.adapter == base and x.scenario == scenario
             and x.ok]
        if a and b:
            den = statistics.median(metric(x) for x in b)
            if den and not math.isnan(den):
                values.append(metric(a[0]) / den)
    if not values:
        return (math.nan, math.nan, math.nan)
    return (statistics.median(values), min(values), max(values))


def pooled(records: list[Record], adapter: str, scenario: str) -> Record | None:
    """All rounds of one adapter and scenario as one record (samples pooled)."""
    mine = [r for r in records if r.adapter == adapter and r.scenario == scenario and r.ok]
    if not mine:
        return None
    data = dict(mine[0].data)
    for key in ("samples_ns", "events_ns", "items"):
        data[key] = [v for r in mine for v in r.data.get(key, [])]
    for key in ("n", "cpu_ns", "loop_ns"):
        data[key] = sum(r.data.get(key, 0) for r in mine)
    served = [r for r in mine if "server_cpu_ns" in r.data]
    if served:
        for key in ("server_cpu_ns", "server_idle_ns"):
            data[key] = sum(r.data[key] for r in served)
        data["server_n"] = sum(r.data.get("n", 0) for r in served)
    for key in ("rss_peak_loop_kb", "rss_ready_kb"):
        data[key] = max(r.data.get(key, -1) for r in mine)
    return Record(0, adapter, scenario, True, data)


def environment(args, apiserver_version: str, pinning: str) -> dict[str, str]:
    def out(cmd: list[str]) -> str:
        try:
            return subprocess.run(cmd, capture_output=True, text=True, check=True,
                                  cwd=ROOT).stdout.strip()
        except (OSError, subprocess.CalledProcessError):
            return "?"
    cpu = "?"
    try:
        for line in Path("/proc/cpuinfo").read_text().splitlines():
            if line.startswith("model name"):
                cpu = line.split(":", 1)[1].strip()
                break
    except OSError:
        pass
    mem_kb = 0
    try:
        for line in Path("/proc/meminfo").read_text().splitlines():
            if line.startswith("MemTotal"):
                mem_kb = int(line.split()[1])
    except OSError:
        pass
    # The report's own files do not count: the primary pass has rewritten them when the
    # library-defaults pass starts.
    dirty = out(["git", "status", "--porcelain", "--untracked-files=no", "--", ".",
                 ":(exclude)benchmarks/report.md", ":(exclude)benchmarks/report.csv",
                 ":(exclude)benchmarks/charts", ":(exclude)benchmarks/defaults"])
    return {
        "date": dt.datetime.now(dt.timezone.utc).strftime("%Y-%m-%d %H:%M UTC"),
        "machine": f"{cpu}, {os.cpu_count()} cores, {mem_kb / 1048576:.0f} GiB, "
                   f"{platform.system()} {platform.release()}",
        "os": out(["sh", "-c", ". /etc/os-release && echo $PRETTY_NAME"]),
        "kubex": out(["git", "rev-parse", "--short", "HEAD"]) + (" (modified)" if dirty else ""),
        "compiler": out(["sh", "-c", "${CXX:-g++} --version | head -1"]),
        "openssl": out(["openssl", "version"]),
        "kube-apiserver": apiserver_version,
        "command": args.command_line,
        "pass": "library defaults" if args.library_defaults else "primary (compression off)",
        "pinning": pinning,
    }


def targets(records: list[Record], memory_records: list[Record], names: list[str]) -> list[str]:
    """The issue's targets, checked against this run (they live here, never in timed tests)."""
    if "kubex" not in names or "L1" not in names:
        return []
    rows = []

    def wall_vs_l1(scenario: str) -> float:
        return median_of_rounds(records, "kubex", scenario, "L1", lambda r: r.p(0.5))[0]

    def l1_p50(scenario: str) -> float:
        l1 = [r.p(0.5) for r in records if r.adapter == "L1" and r.scenario == scenario and r.ok]
        return statistics.median(l1) if l1 else math.nan

    for scen in ("list_medium", "list_large"):
        v = wall_vs_l1(scen)
        if not math.isnan(v):
            rows.append((f"kubex wall p50 ≤ 1.10× L1 on {scen}", f"{v:.2f}×", v <= 1.10))
    v, base = wall_vs_l1("single_get"), l1_p50("single_get")
    if not math.isnan(v):
        limit = (1.05 * base + 0.2e6) / base
        rows.append(("kubex wall p50 ≤ 1.05× L1 + 0.2 ms on single_get",
                     f"{v:.2f}× (allowed {limit:.2f}×)", v <= limit))
    for peer, factor in (("kubex-py-aiohttp", 20), ("k8s-asyncio", 200)):
        if peer in names:
            c = median_of_rounds(records, peer, "list_large", "kubex", lambda r: r.cpu_per_op)[0]
            # What any client could reach: the peer's CPU over L1's, which only reads the bytes.
            bound = median_of_rounds(records, peer, "list_large", "L1", lambda r: r.cpu_per_op)[0]
            if not math.isnan(c):
                rows.append((f"kubex CPU/op ≥ {factor}× below {peer} on list_large",
                             f"{c:.0f}× (L1, reading the bytes without decoding, is "
                             f"{bound:.0f}× below)", c >= factor))
    # Each configuration of kubex on its own: the default (streams over HTTP/2, requests over
    # HTTP/1.1), HTTP/1.1 only and HTTP/2 only.
    for ours in ("kubex", "kubex-h1", "kubex-h2"):
        if ours not in names:
            continue
        for peer in ("client-go", "client-go-h1", "kube-rs"):
            if peer not in names:
                continue
            slower = []
            for scen in sorted({r.scenario for r in records}):
                w = median_of_rounds(records, peer, scen, ours, lambda r: r.p(0.5))[0]
                c = median_of_rounds(records, peer, scen, ours, lambda r: r.cpu_per_op)[0]
                if not math.isnan(w) and (w < 1 or c < 1):
                    slower.append(f"{scen} (wall {w:.2f}, CPU {c:.2f})")
            rows.append((f"{ours} faster than {peer} in wall and CPU on every scenario",
                         "; ".join(slower) if slower else "yes", not slower))
    # Protobuf against protobuf (issue 21): wall no slower, CPU at most 0.6×.
    if "kubex-proto" in names and "client-go-proto" in names:
        for scen in ("list_medium", "list_large", "list_metadata_only"):
            w = median_of_rounds(records, "kubex-proto", scen, "client-go-proto",
                                 lambda r: r.p(0.5))[0]
            c = median_of_rounds(records, "kubex-proto", scen, "client-go-proto",
                                 lambda r: r.cpu_per_op)[0]
            if not math.isnan(w):
                rows.append((f"kubex-proto wall p50 ≤ client-go-proto's on {scen}", f"{w:.2f}×",
                             w <= 1))
                rows.append((f"kubex-proto CPU/op ≤ 0.6× client-go-proto's on {scen}",
                             f"{c:.2f}×", c <= 0.6))
    big = [r for r in memory_records if r.adapter == "kubex" and r.scenario == "list_large" and
           r.ok and "allocs_per_op" in r.data]
    bytes_l1 = [r.data["bytes_per_op"] for r in records if r.adapter == "L1" and
                r.scenario == "list_large" and r.ok and "bytes_per_op" in r.data]
    if big:
        d = big[0].data
        items = [i for i in d["items"] if i > 0]
        per = d["allocs_per_op"] / statistics.mean(items) if items else math.nan
        rows.append(("≤ 3 allocations per pod on list_large", f"{per:.1f}", per <= 3))
        if bytes_l1:
            growth = (d["rss_peak_loop_kb"] - d["rss_ready_kb"]) * 1024 / bytes_l1[0]
            rows.append(("peak RSS ≤ 2× response bytes above the baseline on list_large",
                         f"{growth:.2f}×", growth <= 2))
            anon = anon_rss_growth_bytes(d)
            if anon is not None:
                anon /= bytes_l1[0]
                rows.append(("peak anonymous RSS ≤ 1.5× response bytes above the baseline on "
                             "list_large", f"{anon:.2f}×", anon <= 1.5))
    if not rows:
        return []
    out = ["## Targets (from the benchmark issue; checked in this run)", "",
           "| target | measured | |", "|---|---|---|"]
    out += [f"| {t} | {m} | {'met' if ok else '**missed**'} |" for t, m, ok in rows]
    return out + [""]


def write_report(records: list[Record], adapters: list[Adapter], scenarios: list[Scenario],
                 env: dict[str, str], out: Path, charts: list[str],
                 memory_records: list[Record]) -> None:
    names = [a.name for a in adapters]
    labels = {a.name: a.label for a in adapters}
    rounds = len({r.round for r in records})
    lines = [
        "# kubex benchmark report" + (" — library-defaults pass"
                                      if env.get("pass") == "library defaults" else ""),
        "",
        "Every client runs the same scenarios, one fresh process per (adapter, scenario), "
        "against one real kube-apiserver on loopback TLS, in the same run as the physical "
        "limits L1 (raw TLS fetch of the same request, no decoding) and L2 (L1 plus a full "
        "simdjson walk). " + (
            "**Library-defaults pass:** the server compresses responses over 128 KiB for "
            "clients that ask (APIResponseCompression on), and every library runs as it comes "
            "(gzip, HTTP/2 where it negotiates it); L1/L2 still ask for identity. See the "
            "accept_encoding and http columns of report.csv. "
            if env.get("pass") == "library defaults" else
            "Server-side response compression is off, so every client receives the same "
            "bytes. ") +
        "Figures are machine-specific; ratios are taken within a round and summarised as the "
        "median over rounds (min–max in brackets). Reproduce with `scripts/run.sh` (the "
        "command below is what it ran).",
        "",
        "| | |", "|---|---|",
    ]
    lines += [f"| {k} | {v} |" for k, v in env.items()]
    lines += [f"| rounds | {rounds} |", ""]

    lines += ["## Headline: wall p50 as a ratio to L1 (lower is better; 1.00× is the limit)", "",
              "| scenario | " + " | ".join(n for n in names if n != "L1") + " |",
              "|---|" + "---|" * (len(names) - 1)]
    for s in scenarios:
        row = [s.name]
        for n in names:
            if n == "L1":
                continue
            med, lo, hi = median_of_rounds(records, n, s.name, "L1", lambda r: r.p(0.5))
            row.append(ratio(med) + (f" ({lo:.2f}–{hi:.2f})" if rounds > 1 and not
                                     math.isnan(med) else ""))
        lines.append("| " + " | ".join(row) + " |")
    lines.append("")

    # kubex against each client: how many times slower the other is (wall p50 and CPU/op,
    # medians over rounds of the within-round ratio).
    clients = [n for n in names if n != "kubex" and not next(a for a in adapters
                                                             if a.name == n).limit]
    if "kubex" in names and clients:
        lines += ["## Headline: each client against kubex (wall p50 ratio / CPU per op ratio; "
                  ">1 means kubex is faster)", "",
                  "| scenario | " + " | ".join(clients) + " |",
                  "|---|" + "---|" * len(clients)]
        for s in scenarios:
            row = [s.name]
            for n in clients:
                wall, _, _ = median_of_rounds(records, n, s.name, "kubex", lambda r: r.p(0.5))
                cpu, _, _ = median_of_rounds(records, n, s.name, "kubex",
                                             lambda r: r.cpu_per_op)
                row.append("–" if math.isnan(wall) else f"{ratio(wall)} / {ratio(cpu)}")
            lines.append("| " + " | ".join(row) + " |")
        lines.append("")

    lines += targets(records, memory_records, names)

    failures = [r for r in records if not r.ok or r.problems]
    if failures:
        lines += ["## Failures and validity problems", ""]
        for r in failures:
            what = r.error if not r.ok else "; ".join(r.problems)
            lines.append(f"- round {r.round}, {r.adapter}, {r.scenario}: {what}")
        lines.append("")

    lines += ["## Scenarios", "",
              "Columns: n = measured iterations over all rounds; wall percentiles are "
              "nearest-rank over the pooled samples; ×L1 and Δ L1 from the round medians; CPU "
              "is the client process's user+system time per operation; server CPU is the "
              "control plane's (kube-apiserver, and etcd with the simulated kubelets) over the "
              "measured loop, less what it spends idle over as long, per operation "
              "(indicative only: the apiserver's garbage collection and the controllers' "
              "periodic work land in whichever loop they fall in, and the ticks are 10 ms; "
              "rounds differ by up to a third on the small requests); RSS is the peak during "
              "the measured loop and after set-up; bytes = response body bytes per request "
              "(L1 reads them); conns = connections opened during the loop (– where the "
              "library cannot count them).", ""]
    notes = [f"Opens connections within request loops as it comes (counted, not a validity "
             f"failure): {a.label}: {a.reconnects}." for a in adapters if a.reconnects]
    lines += notes + ([""] if notes else [])
    for s in scenarios:
        lines += [f"### `{s.name}`", "", f"> {s.description}", "",
                  "| adapter | n | p50 ms | p95 ms | p99 ms | ×L1 | Δ L1 ms | CPU ms/op | "
                  "server CPU ms/op | event p50 µs | event p99 µs | peak RSS MiB | "
                  "ready RSS MiB | bytes | conns |",
                  "|---|" + "---:|" * 14]
        for n in names:
            p = pooled(records, n, s.name)
            if p is None:
                continue
            samples = p.samples
            ev = sorted(p.data.get("events_ns", []))
            med, _, _ = median_of_rounds(records, n, s.name, "L1", lambda r: r.p(0.5))
            if n == "L1":
                med = 1.0  # by definition; the first and last L1 runs are pooled
            delta = [x.p(0.5) - y.p(0.5) for x in records for y in records
                     if x.adapter == n and y.adapter == "L1" and x.scenario == s.name ==
                     y.scenario and x.round == y.round and x.ok and y.ok]
            p99 = ms(percentile(samples, 0.99)) if len(samples) >= 100 else \
                f"max {ms(samples[-1])}"
            row = [labels[n], str(int(p.data["n"])), ms(percentile(samples, 0.5)),
                   ms(percentile(samples, 0.95)), p99, ratio(med),
                   f"{statistics.median(delta) / 1e6:+.3f}" if delta else "–",
                   f"{p.cpu_per_op / 1e6:.3f}",
                   "–" if math.isnan(p.server_cpu_per_op) else
                   f"{p.server_cpu_per_op / 1e6:.3f}",
                   f"{percentile(ev, 0.5) / 1e3:.1f}" if ev else "–",
                   f"{percentile(ev, 0.99) / 1e3:.1f}" if ev else "–",
                   f"{p.data.get('rss_peak_loop_kb', -1) / 1024:.1f}",
                   f"{p.data.get('rss_ready_kb', -1) / 1024:.1f}",
                   f"{int(p.data['bytes_per_op']):,}" if "bytes_per_op" in p.data else "",
                   # "–": the adapter cannot count them (kube-rs); see its README.
                   str(int(p.data["connections_opened"])) if "connections_opened" in p.data
                   else "–"]
            lines.append("| " + " | ".join(row) + " |")
        lines.append("")
    if memory_records:
        lines += ["## Memory pass", "",
                  "A separate pass, fewer iterations, instrumented (its wall times are not "
                  "latency). C++ and Rust allocate through malloc, counted by a library preloaded "
                  "over it (`common/alloc_shim.c`); the Python clients run with "
                  "`PYTHONMALLOC=malloc` under the same counter, so that every object "
                  "allocation is a malloc call (pymalloc would hide most of them); Go allocates "
                  "without malloc and reports its runtime's counters (`runtime.MemStats`: "
                  "`Mallocs`, `TotalAlloc`); V8 counts no allocations, so Node reports only bytes: "
                  "its heap in use before each collection less what the previous one left "
                  "(`v8.GCProfiler`). Allocations and bytes are per operation; per item "
                  "divides by the items an operation returned; peak live is the most heap in use "
                  "during the loop above what was live before it (not tracked for Go or Node); RSS growth "
                  "is the loop's peak RSS over the RSS after set-up, against the response's bytes "
                  "(measured by L1); anonymous growth leaves out the file-backed pages (the "
                  "program's code, which the first calls fault in, and mapped files): the peak "
                  "less the file-backed RSS at the loop's end, over the anonymous RSS after "
                  "set-up. A garbage-collected runtime's RSS growth depends on its "
                  "collector's pacing as much as on what the client keeps.", "",
                  "| scenario | adapter | counted by | allocs/op | allocs/item | KiB alloc/op | "
                  "peak live KiB | RSS growth MiB | × response bytes | anonymous MiB | "
                  "× response bytes |",
                  "|---|---|---|" + "---:|" * 8]
        bytes_of = {}
        for r in records:
            if r.adapter == "L1" and r.ok and "bytes_per_op" in r.data:
                bytes_of[r.scenario] = r.data["bytes_per_op"]
        for s in scenarios:
            for r in memory_records:
                if r.scenario != s.name or not r.ok or "alloc_bytes_per_op" not in r.data:
                    continue
                d = r.data
                items = [i for i in d.get("items", []) if i > 0]
                allocs = d.get("allocs_per_op")  # V8 counts none (client-node)
                per_item = (allocs / statistics.mean(items) if items and allocs is not None
                            else math.nan)
                growth = (d["rss_peak_loop_kb"] - d["rss_ready_kb"]) * 1024
                anon = anon_rss_growth_bytes(d)
                resp = bytes_of.get(s.name)
                peak = d.get("alloc_peak_live_bytes")
                cells = [s.name, labels[r.adapter], d.get("memory_method", "malloc shim"),
                         "–" if allocs is None else f"{allocs:,.0f}",
                         "–" if math.isnan(per_item) else f"{per_item:.1f}",
                         f"{d['alloc_bytes_per_op'] / 1024:,.1f}",
                         "–" if peak is None else f"{peak / 1024:,.0f}",
                         f"{growth / 1048576:.1f}",
                         f"{growth / resp:.2f}×" if resp else "–",
                         "–" if anon is None else f"{anon / 1048576:.1f}",
                         f"{anon / resp:.2f}×" if resp and anon is not None else "–"]
                lines.append("| " + " | ".join(cells) + " |")
        lines.append("")
    if charts:
        lines += ["## Charts", ""] + [f"![{c}](charts/{c})" for c in charts] + [""]
    (out / "report.md").write_text("\n".join(lines))


def anon_rss_growth_bytes(d: dict) -> float | None:
    """The loop's peak RSS less its file-backed and shared pages, over the anonymous RSS after
    set-up: the heap and buffers the calls grew, without the program's code pages they first
    touched. None when the adapter does not report the split."""
    ready, files = d.get("rss_ready_anon_kb", -1), d.get("rss_done_file_kb", -1)
    if ready < 0 or files < 0 or d.get("rss_peak_loop_kb", -1) < 0:
        return None
    return (d["rss_peak_loop_kb"] - files - ready) * 1024


CSV_COLUMNS = [
    # Kubex's columns first (same names), then ours.
    "adapter", "scenario", "runtime", "k8s_version", "iterations", "items_mean",
    "peak_rss_bytes", "total_bytes_alloc", "total_allocations", "steady_heap_bytes",
    "cpu_seconds", "wall_p50_ns", "wall_p95_ns", "wall_p99_ns", "evt_p50_ns", "evt_p99_ns",
    "asymmetric",
    "variant", "rounds", "ratio_l1_p50", "ratio_l1_p50_min", "ratio_l1_p50_max", "cpu_ns_per_op",
    "ready_rss_bytes", "bytes_per_op", "connections_opened", "http", "accept_encoding",
    "server_cpu_ns_per_op",
]


def write_csv(records: list[Record], adapters: list[Adapter], scenarios: list[Scenario],
              k8s_version: str, out: Path) -> None:
    rounds = len({r.round for r in records})
    with open(out / "report.csv", "w", newline="") as f:
        w = csv.writer(f, lineterminator="\n")
        w.writerow(CSV_COLUMNS)
        for s in sorted(scenarios, key=lambda s: s.name):
            for a in sorted(adapters, key=lambda a: a.name):
                p = pooled(records, a.name, s.name)
                if p is None:
                    continue
                samples, ev = p.samples, sorted(p.data.get("events_ns", []))
                items = [i for i in p.data.get("items", []) if i >= 0]
                med, lo, hi = median_of_rounds(records, a.name, s.name, "L1", lambda r: r.p(0.5))
                w.writerow([
                    a.name, s.name, p.data.get("runtime") or
                    ("c++" if a.name in ("kubex", "L1", "L2") else ""),
                    k8s_version, int(p.data["n"]),
                    f"{statistics.mean(items):.2f}" if items else "",
                    int(p.data.get("rss_peak_loop_kb", -1)) * 1024, "", "", "",
                    f"{p.data['cpu_ns'] / 1e9:.6f}",
                    int(percentile(samples, 0.5)), int(percentile(samples, 0.95)),
                    int(percentile(samples, 0.99)),
                    int(percentile(ev, 0.5)) if ev else "", int(percentile(ev, 0.99)) if ev else "",
                    0,
                    p.data.get("variant", ""), rounds,
                    "" if math.isnan(med) else f"{med:.4f}",
                    "" if math.isnan(lo) else f"{lo:.4f}", "" if math.isnan(hi) else f"{hi:.4f}",
                    int(p.cpu_per_op), int(p.data.get("rss_ready_kb", -1)) * 1024,
                    int(p.data.get("bytes_per_op", 0)) or "",
                    int(p.data["connections_opened"]) if "connections_opened" in p.data else "",
                    p.data.get("http", ""),
                    p.data.get("accept_encoding", ""),
                    "" if math.isnan(p.server_cpu_per_op) else int(p.server_cpu_per_op),
                ])


def write_charts(records: list[Record], adapters: list[Adapter], scenarios: list[Scenario],
                 out: Path) -> list[str]:
    try:
        import matplotlib
        matplotlib.use("Agg")
        import matplotlib.pyplot as plt
    except ImportError:
        print("run.py: matplotlib is missing (scripts/install-deps.sh --bench installs it); "
              "no charts", file=sys.stderr)
        return []
    charts_dir = out / "charts"
    charts_dir.mkdir(parents=True, exist_ok=True)
    made = []
    for name, title, metric in (
            ("wall_p50.png", "wall p50 per operation (ms, log scale)",
             lambda p: percentile(p.samples, 0.5) / 1e6),
            ("cpu_per_op.png", "client CPU per operation (ms, log scale)",
             lambda p: p.cpu_per_op / 1e6)):
        fig, ax = plt.subplots(figsize=(11, 5))
        width = 0.8 / max(1, len(adapters))
        # tab20: a colour per adapter (tab10, the default, repeats after ten).
        colours = plt.get_cmap("tab20").colors
        for i, a in enumerate(adapters):
            xs, ys = [], []
            for j, s in enumerate(scenarios):
                p = pooled(records, a.name, s.name)
                if p is not None:
                    xs.append(j + i * width)
                    ys.append(max(metric(p), 1e-4))
            ax.bar(xs, ys, width, label=a.label, color=colours[i % len(colours)])
        ax.set_yscale("log")
        ax.set_xticks([j + 0.4 - width / 2 for j in range(len(scenarios))])
        ax.set_xticklabels([s.name for s in scenarios], rotation=30, ha="right")
        ax.set_title(title)
        ax.legend(fontsize=8)
        fig.tight_layout()
        fig.savefig(charts_dir / name, dpi=90)
        plt.close(fig)
        made.append(name)
    return made


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--build-dir", type=Path, default=ROOT / "build" / "bench",
                    help="where the C++ adapters were built (default build/bench)")
    ap.add_argument("--out", type=Path, default=ROOT / "build" / "bench-report",
                    help="report.md, report.csv and charts/ go here")
    ap.add_argument("--results", type=Path, default=None,
                    help="every process's raw record, one JSON line each "
                         "(default OUT/results.jsonl)")
    ap.add_argument("--namespace", default="",
                    help="seeded namespace (default: a new bench-<hex>, deleted afterwards)")
    ap.add_argument("--pods", type=int, default=500, help="pods to seed (default 500)")
    ap.add_argument("--no-seed", action="store_true", help="the namespace is already seeded")
    ap.add_argument("--adapters", default="", help="comma-separated subset (default: all)")
    ap.add_argument("--scenarios", default="", help="comma-separated subset (default: all)")
    ap.add_argument("--rounds", type=int, default=2)
    ap.add_argument("--iters-scale", type=float, default=1.0,
                    help="multiply every scenario's warm-up and measured iterations")
    ap.add_argument("--max-seconds", type=float, default=30.0,
                    help="stop an adapter's measured loop after this long (at least 30 "
                         "iterations, 5 in streaming scenarios)")
    ap.add_argument("--warmup-seconds", type=float, default=1.0)
    ap.add_argument("--seed", type=int, default=1, help="of the per-round adapter order")
    ap.add_argument("--full", action="store_true",
                    help="the method's full run: 3 rounds, 90 s per process, memory pass")
    ap.add_argument("--memory", action="store_true",
                    help="add the memory pass (allocations per operation; instrumented)")
    ap.add_argument("--smoke", action="store_true",
                    help="CI's check of the harness: kubex and L1, single_get and list_small, "
                         "few iterations, 20 pods, no charts")
    ap.add_argument("--library-defaults", action="store_true",
                    help="the secondary pass: each library as it comes (gzip, HTTP/2), against "
                         "a server with compression on; list_medium, list_large and "
                         "watch_n_events unless --scenarios says otherwise")
    ap.add_argument("--no-charts", action="store_true")
    ap.add_argument("--no-pin", action="store_true",
                    help="leave the control plane and the clients on every CPU (default: the "
                         "control plane on the first half of the CPUs, clients on the rest)")
    ap.add_argument("--setup-only", action="store_true",
                    help="install and build the peers (those of --adapters, default all) "
                         "and stop: no control plane needed (scripts/test.sh runs this)")
    ap.add_argument("--report-only", type=Path, metavar="RESULTS",
                    help="rebuild report.md/csv/charts in --out from an earlier results file")
    args = ap.parse_args()
    args.command_line = "python3 benchmarks/suite/run.py " + " ".join(
        shlex.quote(a) for a in sys.argv[1:])
    if args.full:
        args.rounds, args.max_seconds, args.memory = max(args.rounds, 3), 90.0, True
    if args.smoke:
        args.adapters = args.adapters or "L1,kubex"
        args.scenarios = args.scenarios or "single_get,list_small"
        args.rounds, args.iters_scale, args.warmup_seconds = 1, 0.1, 0.0
        args.pods = min(args.pods, 20)
        args.no_charts = True

    if args.library_defaults:
        args.memory = False  # allocations are the primary pass's business
    if args.library_defaults and not args.scenarios:
        args.scenarios = "list_medium,list_large,watch_n_events"
    if args.report_only:
        return report_only(args, args.report_only)
    if args.setup_only:
        return setup_only(args, ap)
    kubeconfig = os.environ.get("KUBEX_TESTENV_KUBECONFIG")
    testenv_bin = os.environ.get("KUBEX_TESTENV_BIN")
    if not kubeconfig or not testenv_bin:
        print("run.py: needs a running testenv; use scripts/run.sh, or run it under "
              "scripts/with-testenv.sh --feature-gates=APIResponseCompression=false -- ...",
              file=sys.stderr)
        return 2

    scenarios = SCENARIOS
    if args.scenarios:
        unknown = set(args.scenarios.split(",")) - set(SCENARIO_BY_NAME)
        if unknown:
            ap.error(f"unknown scenarios: {', '.join(sorted(unknown))}")
        wanted = args.scenarios.split(",")
        scenarios = [s for s in SCENARIOS if s.name in wanted]

    args.out.mkdir(parents=True, exist_ok=True)
    with tempfile.TemporaryDirectory(prefix="kubex-bench-") as secrets_dir:
        target = connection_target(kubeconfig, Path(secrets_dir))
        adapters = cpp_adapters(args.build_dir.resolve(), kubeconfig, target)
        peers = peer_adapters(kubeconfig, args.build_dir.resolve())
        adapters += [p.adapter for p in peers]
        if args.adapters:
            wanted = args.adapters.split(",")
            unknown = set(wanted) - {a.name for a in adapters}
            if unknown:
                ap.error(f"unknown adapters: {', '.join(sorted(unknown))}")
            adapters = [a for a in adapters if a.name in wanted]
        names = {a.name for a in adapters}
        set_up_peers([p for p in peers if p.adapter.name in names])
        for a in adapters:
            if a.name in ("L1", "L2", "kubex") and not Path(a.command[0]).exists():
                print(f"run.py: {a.command[0]} is missing: build the suite first "
                      "(scripts/run.sh does)", file=sys.stderr)
                return 2

        own_namespace = not args.namespace
        if own_namespace:
            if args.no_seed:
                ap.error("--no-seed needs --namespace")
            args.namespace = f"bench-{random.SystemRandom().getrandbits(32):08x}"
        if not args.no_seed:
            print(f"==> seeding {args.namespace} with {args.pods} pods and log-emitter",
                  flush=True)
            subprocess.run([testenv_bin, "seed", "--kubeconfig", kubeconfig, "--namespace",
                            args.namespace, "--pods", str(args.pods)], check=True)
        apiserver_version = subprocess.run(
            ["kubectl", "--kubeconfig", kubeconfig, "version", "-o", "json"],
            capture_output=True, text=True).stdout
        try:
            apiserver_version = json.loads(apiserver_version)["serverVersion"]["gitVersion"]
        except (ValueError, KeyError):
            apiserver_version = "?"

        records: list[Record] = []
        rng = random.Random(args.seed)
        started = time.monotonic()
        results_path = args.results or args.out / "results.jsonl"
        results_path.parent.mkdir(parents=True, exist_ok=True)
        results = open(results_path, "w")
        # After the peers' set-up (builds use every CPU), before any measurement.
        pinning = Pinning(os.environ.get("KUBEX_TESTENV_DIR", ""), not args.no_pin)
        print(f"==> pinning: {pinning.text}", flush=True)
        args.server_cpu = ServerCpu(os.environ.get("KUBEX_TESTENV_DIR", ""))
        if args.server_cpu.pids:
            args.server_cpu.measure_idle(2.0 if args.smoke else 5.0)
            idle_ms = args.server_cpu.idle_ns_per_s / 1e6
            print(f"==> control plane idle: {idle_ms:.0f} ms of CPU per second (subtracted "
                  "from server CPU per operation)", flush=True)
        env = environment(args, apiserver_version, pinning.text)
        results.write(json.dumps({"environment": env, "k8s_version": apiserver_version,
                                  "scenarios": [x.name for x in scenarios],
                                  "adapters": [{"name": a.name, "label": a.label,
                                                "limit": a.limit, "reconnects": a.reconnects}
                                               for a in adapters]}) + "\n")
        memory_records: list[Record] = []

        def one(a: Adapter, s: Scenario, round_no: int, memory: bool) -> None:
            t0 = time.monotonic()
            rec = run_one(a, s, args, args.namespace, round_no, [target["token"]], memory)
            if memory and rec.ok:
                rec.data["memory_method"] = a.memory_method
            (memory_records if memory else records).append(rec)
            results.write(json.dumps({"round": round_no, "pass": "memory" if memory else "timing",
                                      "adapter": a.name, "scenario": s.name, "ok": rec.ok,
                                      "error": rec.error, "problems": rec.problems,
                                      "result": rec.data}) + "\n")
            results.flush()
            status = "FAILED: " + rec.error if not rec.ok else \
                ("INVALID: " + "; ".join(rec.problems) if rec.problems else
                 f"p50 {ms(rec.p(0.5))} ms, n={int(rec.data['n'])}")
            label = "memory pass" if memory else f"round {round_no}/{args.rounds}"
            print(f"[{time.monotonic() - started:6.0f}s] {label} {s.name:22} {a.name:16} "
                  f"{status} ({time.monotonic() - t0:.1f}s)", flush=True)

        try:
            for round_no in range(1, args.rounds + 1):
                for s in scenarios:
                    order = [a for a in adapters if a.name != "L1"]
                    rng.shuffle(order)
                    l1 = [a for a in adapters if a.name == "L1"]
                    # L1 first and last, so drift within the block shows.
                    for a in l1 + order + l1:
                        if a.scenarios is None or s.name in a.scenarios:
                            one(a, s, round_no, memory=False)
            if args.memory:
                # Instrumented: its wall times are never reported as latency.
                for s in scenarios:
                    for a in adapters:
                        if a.memory_env is not None and (a.scenarios is None or
                                                         s.name in a.scenarios):
                            one(a, s, 0, memory=True)
        finally:
            pinning.undo()
        results.close()
        if own_namespace:
            subprocess.run(["kubectl", "--kubeconfig", kubeconfig, "delete", "namespace",
                            args.namespace, "--wait=false"], capture_output=True)

    return finish(args, records, memory_records, adapters, scenarios, env, apiserver_version)


def charts_elsewhere(args) -> list[str]:
    """When this interpreter lacks matplotlib (a pyenv Python, say), the system's python3 may
    have it (Debian's python3-matplotlib): it draws the charts from the results file."""
    system = Path("/usr/bin/python3")
    results = args.report_only or args.results or args.out / "results.jsonl"
    if not system.exists() or Path(sys.executable).resolve() == system.resolve():
        return []
    with tempfile.TemporaryDirectory(prefix="kubex-bench-charts-") as tmp:
        done = subprocess.run([str(system), __file__, "--report-only", str(results), "--out", tmp],
                              capture_output=True, text=True)
        made = sorted(p.name for p in (Path(tmp) / "charts").glob("*.png"))
        if done.returncode not in (0, 1) or not made:
            return []
        (args.out / "charts").mkdir(parents=True, exist_ok=True)
        for name in made:
            shutil.copy(Path(tmp) / "charts" / name, args.out / "charts" / name)
    print(f"run.py: charts drawn by {system}", file=sys.stderr)
    return made


def finish(args, records: list[Record], memory_records: list[Record], adapters: list[Adapter],
           scenarios: list[Scenario], env: dict[str, str], k8s_version: str) -> int:
    args.out.mkdir(parents=True, exist_ok=True)
    charts = [] if args.no_charts else write_charts(records, adapters, scenarios, args.out)
    if not args.no_charts and not charts:
        charts = charts_elsewhere(args)
    write_report(records, adapters, scenarios, env, args.out, charts, memory_records)
    write_csv(records, adapters, scenarios, k8s_version, args.out)

    # The headline, as the report has it.
    text = (args.out / "report.md").read_text()
    start = text.index("## Headline")
    print("\n" + text[start:text.index("\n\n", text.index("|", start))] + "\n")
    print(f"report: {args.out / 'report.md'}")
    bad = [r for r in records + memory_records if not r.ok or r.problems]
    if bad:
        print(f"run.py: {len(bad)} runs failed or broke a validity check (see the report)",
              file=sys.stderr)
        return 1
    return 0


def report_only(args, path: Path) -> int:
    """Rebuilds the report from a results file of an earlier run (run.py --report-only)."""
    lines = [json.loads(line) for line in path.read_text().splitlines() if line.strip()]
    head = lines[0]
    adapters = [Adapter(a["name"], a["label"], [], limit=a["limit"],
                        reconnects=a.get("reconnects", "")) for a in head["adapters"]]
    scenarios = [SCENARIO_BY_NAME[n] for n in head["scenarios"]]
    records, memory_records = [], []
    for line in lines[1:]:
        rec = Record(line["round"], line["adapter"], line["scenario"], line["ok"],
                     line["result"], line["error"], line["problems"])
        (memory_records if line.get("pass") == "memory" else records).append(rec)
    return finish(args, records, memory_records, adapters, scenarios, head["environment"],
                  head["k8s_version"])


if __name__ == "__main__":
    sys.exit(main())
