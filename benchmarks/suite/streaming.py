#!/usr/bin/env python3
# SPDX-License-Identifier: Apache-2.0
"""The streaming benchmark: exec and port-forward through the apiserver, kubex beside kubectl,
client-go and kube-rs, on one testenv, in the same run.

    scripts/with-testenv.sh -- python3 benchmarks/suite/streaming.py \\
        --build-dir build/ci --out benchmarks/streaming --rounds 3

A pod with an echo port (7000) and an http port (8080) runs in a fresh namespace; testenv's
simulated kubelet serves its exec built-ins and sends its port-forwards to a TCP echo server and
to an HTTP server whose GET /bytes/N answers N bytes (tools/testenv/simkubelet/doc.go).
Scenarios, each in one process per (round, adapter) doing --warmup iterations, then the measured
ones:

    exec_echo         `echo hi` run to its exit, each iteration a new exec session: latency
                      p50/p99, CPU per exec
    exec_interactive  one `cat` session; each iteration writes a line of --line-bytes bytes to
                      its stdin and reads it back: round-trip p50/p99, CPU per round trip
    pf_download       GET /bytes/--pf-bytes through one forwarded stream to the http port, each
                      download through a new tunnel: MB/s (the body's bytes over the time from
                      opening the tunnel to the last byte) and client CPU per MB
    pf_echo           one forwarded stream to the echo port; each iteration writes --line-bytes
                      bytes and reads them back: round-trip p50/p99, CPU per round trip

The library adapters (kubex, client-go, kube-rs: suite/adapters/*/streaming*) are long-running
programs, so process start is not measured: they print {"phase":"loop"} before their measured
iterations and {"phase":"done"} after them, and each time wait for a line on stdin. Meanwhile
this driver reads the process's CPU (utime + stime of all its threads, /proc/PID/stat) and the
control plane's (kube-apiserver and testenv's process, which runs the simulated kubelet), and at
"loop" resets the process's peak RSS (clear_refs), which it reads (VmHWM) at "done". Then the
program prints its samples (monotonic clock, per iteration) and its own getrusage figure, kept
in results.jsonl as a cross-check.

kubectl (v1.35.4 built on its own by adapters/kubectl/: testenv's kubectl is the same code in a
binary that also carries the control plane, which would add to every start) has no other way
than a process per command. exec_echo runs `kubectl exec POD -- echo hi` per iteration: its
latency is the whole invocation, process start included, and its CPU and peak RSS come from
wait4's rusage (the whole process). exec_interactive drives one `kubectl exec -i POD -- cat`
through its stdin and stdout. The port-forward scenarios start one `kubectl port-forward
pod/POD :PORT` and read through its local port from this driver (a socket with a 1 MiB buffer):
the kubectl process's CPU and peak RSS are measured as the programs' are; the reader's own CPU
is reported apart (reader CPU). The kubex-local row does the same through kubex's
LocalPortForward (Api::forward_local_port), like for like with kubectl port-forward.

Rounds interleave: each round runs every scenario with every adapter, in an order shuffled per
round; ratios (kubex over each peer, kubex-local over kubectl) are taken within a round and
summarised by their median. The control plane runs on the first half of the CPUs and the
clients (this driver, its children) on the other half, as in the suite. A run fails when an iteration fails or a count is short.
"""

from __future__ import annotations

import argparse
import json
import os
import random
import re
import socket
import statistics
import subprocess
import sys
import tempfile
import threading
import time
from dataclasses import dataclass, field
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
import run as suite  # noqa: E402  (the suite's pinning, server CPU, peers' cache)

ROOT = suite.ROOT
HERE = Path(__file__).resolve().parent
ADAPTERS_DIR = HERE / "adapters"
TICK_NS = 1e9 / os.sysconf("SC_CLK_TCK")
ECHO_PORT, HTTP_PORT = 7000, 8080
POD = "stream-server"


@dataclass
class Scenario:
    name: str
    iters: int
    warmup: int
    small_iters: int
    small_warmup: int
    port: int
    unit: str  # what one iteration is, for the report


SCENARIOS = [
    Scenario("exec_echo", 500, 10, 10, 2, 0, "exec"),
    Scenario("exec_interactive", 5000, 50, 20, 2, 0, "round trip"),
    Scenario("pf_download", 3, 1, 2, 1, HTTP_PORT, "download"),
    Scenario("pf_echo", 5000, 50, 20, 2, ECHO_PORT, "round trip"),
]
SCENARIO_BY_NAME = {s.name: s for s in SCENARIOS}
PF = {"pf_download", "pf_echo"}


@dataclass
class Adapter:
    name: str
    label: str
    kind: str  # "program": a library adapter; "kubectl"; "local": a local forwarder program
    command: list[str] = field(default_factory=list)
    setup: list[str] = field(default_factory=list)
    scenarios: set[str] = field(default_factory=lambda: {s.name for s in SCENARIOS})


def adapters(build_dir: Path) -> list[Adapter]:
    cache = suite.cache_dir()
    kubex = str(build_dir / "benchmarks" / "suite" / "kubex-bench-kubex-streaming")
    return [
        Adapter("kubex", "kubex: Api::async_run / async_exec (WebSocket v5.channel.k8s.io), "
                "async_port_forward (SPDY/3.1 inside WebSocket)", "program", [kubex]),
        Adapter("kubex-local", "kubex: LocalPortForward (Api::forward_local_port), read by the "
                "driver like kubectl port-forward", "local", [kubex], scenarios=set(PF)),
        Adapter("client-go", "client-go v0.35.4: remotecommand WebSocket executor (SPDY "
                "fallback), portforward tunneling dialer (SPDY fallback), as kubectl 1.35",
                "program", [str(cache / "client-go" / "bench-client-go-streaming")],
                ["bash", str(ADAPTERS_DIR / "client-go" / "setup.sh")]),
        Adapter("kube-rs", "kube 5.0.0 (ws): Api::exec (WebSocket v5.channel.k8s.io), "
                "Api::portforward (WebSocket v4.channel.k8s.io port-forward)", "program",
                [str(cache / "kube-rs" / "target" / "release" / "kube-rs-streaming")],
                ["bash", str(ADAPTERS_DIR / "kube-rs" / "setup.sh")]),
        Adapter("kubectl", "kubectl v1.35.4 (built on its own: adapters/kubectl/): a process "
                "per exec; port-forward read by the driver", "kubectl",
                [str(cache / "kubectl" / "kubectl")],
                ["bash", str(ADAPTERS_DIR / "kubectl" / "setup.sh")]),
    ]


def set_up(selected: list[Adapter]) -> None:
    peers = [suite.Peer(suite.Adapter(a.name, a.label, a.command, None), a.setup,
                        Path(a.setup[1]).parent) for a in selected if a.setup]
    suite.set_up_peers(peers)


# ------------------------------------------------------------------------------------------
# Measuring a process from /proc


def proc_cpu_ns(pid: int) -> float:
    stat = Path(f"/proc/{pid}/stat").read_text()
    fields = stat[stat.rindex(")") + 2:].split()
    return (int(fields[11]) + int(fields[12])) * TICK_NS


def proc_status_kb(pid: int, key: str) -> int:
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        if line.startswith(key + ":"):
            return int(line.split()[1])
    return -1


def reset_peak(pid: int) -> None:
    Path(f"/proc/{pid}/clear_refs").write_text("5")


def machine_busy_ns() -> tuple[float, float]:
    """CPU time the whole machine spent busy so far (all CPUs), and of it stolen by the
    hypervisor: from /proc/stat."""
    fields = [int(v) for v in Path("/proc/stat").read_text().split("\n", 1)[0].split()[1:]]
    user, nice, system, _idle, _iowait, irq, softirq, steal = fields[:8]
    return (user + nice + system + irq + softirq) * TICK_NS, steal * TICK_NS


def driver_cpu_ns() -> float:
    t = os.times()
    return (t.user + t.system) * 1e9


class Window:
    """What a process and the control plane spent between mark("loop") and mark("done"), and
    what the rest of the machine did meanwhile."""

    def __init__(self, pid: int, server: suite.ServerCpu):
        self.pid, self.server = pid, server
        self.marks: dict[str, tuple] = {}
        self.hwm_kb = -1
        self.rss_loop_kb = -1

    def mark(self, phase: str) -> None:
        if phase == "done":
            self.hwm_kb = proc_status_kb(self.pid, "VmHWM")
        else:
            self.rss_loop_kb = proc_status_kb(self.pid, "VmRSS")
        self.marks[phase] = (proc_cpu_ns(self.pid), self.server.ns(), time.monotonic(),
                             machine_busy_ns(), driver_cpu_ns())
        if phase == "loop":
            reset_peak(self.pid)

    def into(self, rec: dict) -> None:
        (c0, s0, t0, m0, d0), (c1, s1, t1, m1, d1) = self.marks["loop"], self.marks["done"]
        rec["cpu_ns"] = c1 - c0
        rec["hwm_kb"] = self.hwm_kb
        rec["rss_loop_kb"] = self.rss_loop_kb  # when the loop started, after the warm-up
        rec["loop_s"] = t1 - t0
        if s0 is not None and s1 is not None:
            rec["server_cpu_ns"] = max(0.0, (s1 - s0) - self.server.idle_ns_per_s * (t1 - t0))
        other(rec, m0, m1, (c1 - c0) + (d1 - d0) + ((s1 - s0) if s0 is not None and
                                                      s1 is not None else 0), t1 - t0)


def other(rec: dict, m0: tuple[float, float], m1: tuple[float, float], ours_ns: float,
          seconds: float) -> None:
    """The rest of the machine's CPU over a loop, in CPUs: everything busy but the client, the
    driver and the serving control plane (so: other jobs, the controller-manager and
    scheduler), and what the hypervisor stole."""
    if seconds > 0:
        rec["other_cpus"] = max(0.0, (m1[0] - m0[0]) - ours_ns) / 1e9 / seconds
        rec["steal_cpus"] = (m1[1] - m0[1]) / 1e9 / seconds


# ------------------------------------------------------------------------------------------
# Runs


class Failed(Exception):
    pass


def options(s: Scenario, args) -> dict[str, str]:
    iters, warmup = (s.small_iters, s.small_warmup) if args.small else (s.iters, s.warmup)
    if s.name == "pf_download":
        iters = args.pf_iters or iters
    return {"iters": str(iters), "warmup": str(warmup), "port": str(s.port),
            "bytes": str(args.pf_bytes), "warmup-bytes": str(args.pf_warmup_bytes),
            "line-bytes": str(args.line_bytes)}


def run_program(a: Adapter, s: Scenario, args, ctx: dict, server: suite.ServerCpu) -> dict:
    opts = options(s, args)
    argv = a.command + ["--kubeconfig", ctx["kubeconfig"], "--namespace", ctx["namespace"],
                        "--pod", POD, "--scenario", s.name]
    for k, v in opts.items():
        argv += [f"--{k}", v]
    with tempfile.TemporaryFile("w+") as stderr:
        proc = subprocess.Popen(argv, stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                                stderr=stderr, text=True)
        killer = threading.Timer(args.timeout, proc.kill)
        killer.start()
        window = Window(proc.pid, server)
        result = None
        try:
            assert proc.stdout is not None and proc.stdin is not None
            for line in proc.stdout:
                if line.startswith('{"phase":'):
                    window.mark(json.loads(line)["phase"])
                    proc.stdin.write("\n")
                    proc.stdin.flush()
                elif line.startswith("{"):
                    result = json.loads(line)
            proc.stdin.close()
            proc.wait()
        finally:
            killer.cancel()
        stderr.seek(0)
        err = stderr.read()
    if proc.returncode != 0 or result is None or set(window.marks) != {"loop", "done"}:
        why = "killed (timeout)" if proc.returncode == -9 else f"exit {proc.returncode}"
        raise Failed(f"{a.name} {s.name}: {why}: {err.strip()[-2000:]}")
    rec = {"samples_ns": result["samples_ns"], "bytes": result["bytes"],
           "own_cpu_ns": result["cpu_ns"], "own_hwm_kb": result["hwm_kb"]}
    window.into(rec)
    check(rec, s, opts, a)
    return rec


def check(rec: dict, s: Scenario, opts: dict[str, str], a: Adapter) -> None:
    n = int(opts["iters"])
    if len(rec["samples_ns"]) != n:
        raise Failed(f"{a.name} {s.name}: {len(rec['samples_ns'])} samples, not {n}")
    per = {"exec_echo": 3, "pf_download": int(opts["bytes"])}.get(s.name, int(opts["line-bytes"]))
    if rec["bytes"] != n * per:
        raise Failed(f"{a.name} {s.name}: {rec['bytes']} bytes, not {n * per}")


def kubectl_base(a: Adapter, ctx: dict) -> list[str]:
    return [a.command[0], "--kubeconfig", ctx["kubeconfig"], "-n", ctx["namespace"]]


def kubectl_exec_echo(a: Adapter, s: Scenario, args, ctx: dict,
                      server: suite.ServerCpu) -> dict:
    opts = options(s, args)
    argv = kubectl_base(a, ctx) + ["exec", POD, "--", "echo", "hi"]

    def once() -> tuple[int, float, int]:
        """One invocation: its wall time (start to reaped), CPU (ns) and peak RSS (KiB), from
        wait4's rusage of that process."""
        t0 = time.monotonic_ns()
        proc = subprocess.Popen(argv, stdout=subprocess.PIPE, stderr=subprocess.PIPE)
        assert proc.stdout is not None and proc.stderr is not None
        out, err = proc.stdout.read(), proc.stderr.read()  # kubectl's stderr is short
        _, status, usage = os.wait4(proc.pid, 0)
        ns = time.monotonic_ns() - t0
        proc.returncode = os.waitstatus_to_exitcode(status)
        proc.stdout.close()
        proc.stderr.close()
        if proc.returncode != 0 or out != b"hi\n":
            raise Failed(f"kubectl exec: exit {proc.returncode}, {out!r}: {err.decode()[-2000:]}")
        return ns, (usage.ru_utime + usage.ru_stime) * 1e9, usage.ru_maxrss

    for _ in range(int(opts["warmup"])):
        once()
    samples, cpu, hwm = [], 0.0, 0
    s0, t0, m0, d0 = server.ns(), time.monotonic(), machine_busy_ns(), driver_cpu_ns()
    for _ in range(int(opts["iters"])):
        ns, c, rss = once()
        samples.append(ns)
        cpu += c
        hwm = max(hwm, rss)
    s1, t1, m1, d1 = server.ns(), time.monotonic(), machine_busy_ns(), driver_cpu_ns()
    rec = {"samples_ns": samples, "bytes": 3 * len(samples), "cpu_ns": cpu, "hwm_kb": hwm,
           "loop_s": t1 - t0, "cpu_method": "rusage of each kubectl process, start included"}
    if s0 is not None and s1 is not None:
        rec["server_cpu_ns"] = max(0.0, (s1 - s0) - server.idle_ns_per_s * (t1 - t0))
    other(rec, m0, m1, cpu + (d1 - d0) + ((s1 - s0) if s0 is not None and s1 is not None
                                         else 0), t1 - t0)
    check(rec, s, opts, Adapter("kubectl", "", "kubectl"))
    return rec


def read_exactly(fd: int, n: int) -> bytes:
    got = b""
    while len(got) < n:
        piece = os.read(fd, n - len(got))
        if not piece:
            raise Failed(f"ended after {len(got)} of {n} bytes")
        got += piece
    return got


def line_of(size: int, i: int) -> bytes:
    return bytes([ord("a") + i % 26]) * (size - 1) + b"\n"


def kubectl_exec_interactive(a: Adapter, s: Scenario, args, ctx: dict,
                             server: suite.ServerCpu) -> dict:
    opts = options(s, args)
    size = int(opts["line-bytes"])
    proc = subprocess.Popen(kubectl_base(a, ctx) + ["exec", "-i", POD, "--", "cat"],
                            stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                            stderr=subprocess.PIPE, bufsize=0)
    assert proc.stdin is not None and proc.stdout is not None
    fin, fout = proc.stdin.fileno(), proc.stdout.fileno()
    window = Window(proc.pid, server)

    def once(i: int) -> None:
        line = line_of(size, i)
        os.write(fin, line)
        if read_exactly(fout, size) != line:
            raise Failed("kubectl exec -i cat gave back something else")

    try:
        for i in range(int(opts["warmup"])):
            once(i)
        samples = []
        window.mark("loop")
        for i in range(int(opts["iters"])):
            t0 = time.monotonic_ns()
            once(i)
            samples.append(time.monotonic_ns() - t0)
        window.mark("done")
        proc.stdin.close()
        rest = proc.stdout.read()
        err = proc.stderr.read() if proc.stderr else b""
        proc.wait(timeout=60)
    except BaseException:
        proc.kill()
        raise
    if proc.returncode != 0 or rest:
        raise Failed(f"kubectl exec -i cat: exit {proc.returncode}: {err.decode()[-2000:]}")
    rec = {"samples_ns": samples, "bytes": size * len(samples)}
    window.into(rec)
    check(rec, s, opts, Adapter("kubectl", "", "kubectl"))
    return rec


FORWARDING = re.compile(r"Forwarding from 127\.0\.0\.1:(\d+) ->")


def start_forwarder(argv: list[str]) -> tuple[subprocess.Popen, int]:
    """A local forwarder (kubectl port-forward, or the kubex program's local_forward) and the
    local port it prints; the rest of its output is drained by a thread."""
    proc = subprocess.Popen(argv, stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                            stderr=subprocess.PIPE, text=True)
    assert proc.stdout is not None
    deadline = threading.Timer(60, proc.kill)
    deadline.start()
    try:
        for line in proc.stdout:
            m = FORWARDING.search(line)
            if m:
                port = int(m.group(1))
                break
        else:
            raise Failed(f"{argv[0]}: no port: {proc.stderr.read() if proc.stderr else ''}")
    finally:
        deadline.cancel()
    threading.Thread(target=lambda: [None for _ in proc.stdout], daemon=True).start()
    return proc, port


def http_download(port: int, size: int, check_body: bool, buf: memoryview) -> int:
    with socket.create_connection(("127.0.0.1", port)) as sock:
        sock.sendall(f"GET /bytes/{size} HTTP/1.1\r\nHost: pod\r\nConnection: close\r\n\r\n"
                     .encode())
        head = b""
        while b"\r\n\r\n" not in head:
            n = sock.recv_into(buf)
            if n == 0:
                raise Failed("the response ended in its head")
            head += bytes(buf[:n])
        end = head.index(b"\r\n\r\n")
        text = head[:end].decode()
        if not text.startswith("HTTP/1.1 200") or f"Content-Length: {size}\r\n" not in text + "\r\n":
            raise Failed(f"unexpected response head: {text}")
        first = head[end + 4:]
        body = len(first)
        pattern = bytes(ord("a") + i % 26 for i in range(26)) * (len(buf) // 26 + 2)
        if check_body and first != pattern[:len(first)]:
            raise Failed("the body differs")
        while body < size:
            n = sock.recv_into(buf)
            if n == 0:
                raise Failed(f"the body ended after {body} bytes")
            if check_body and bytes(buf[:n]) != pattern[body % 26:body % 26 + n]:
                raise Failed(f"the body differs after {body} bytes")
            body += n
        return body


def run_local(a: Adapter, s: Scenario, args, ctx: dict, server: suite.ServerCpu) -> dict:
    """kubectl port-forward, or kubex's LocalPortForward: the driver reads through it."""
    opts = options(s, args)
    if a.kind == "kubectl":
        argv = kubectl_base(a, ctx) + ["port-forward", f"pod/{POD}", f":{s.port}"]
    else:
        argv = a.command + ["--kubeconfig", ctx["kubeconfig"], "--namespace", ctx["namespace"],
                            "--pod", POD, "--scenario", "local_forward", "--port", str(s.port)]
    proc, port = start_forwarder(argv)
    window = Window(proc.pid, server)
    buf = memoryview(bytearray(1 << 20))
    samples: list[int] = []
    nbytes = 0
    reader_cpu = 0.0
    try:
        if s.name == "pf_download":
            for _ in range(int(opts["warmup"])):
                http_download(port, int(opts["warmup-bytes"]), True, buf)
            window.mark("loop")
            r0 = time.thread_time_ns()
            for _ in range(int(opts["iters"])):
                t0 = time.monotonic_ns()
                nbytes += http_download(port, int(opts["bytes"]), False, buf)
                samples.append(time.monotonic_ns() - t0)
            reader_cpu = time.thread_time_ns() - r0
            window.mark("done")
        else:
            size = int(opts["line-bytes"])
            with socket.create_connection(("127.0.0.1", port)) as sock:
                sock.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
                fd = sock.fileno()

                def once(i: int) -> None:
                    line = line_of(size, i)
                    sock.sendall(line)
                    if read_exactly(fd, size) != line:
                        raise Failed("the echo gave back something else")

                for i in range(int(opts["warmup"])):
                    once(i)
                window.mark("loop")
                r0 = time.thread_time_ns()
                for i in range(int(opts["iters"])):
                    t0 = time.monotonic_ns()
                    once(i)
                    samples.append(time.monotonic_ns() - t0)
                    nbytes += size
                reader_cpu = time.thread_time_ns() - r0
                window.mark("done")
    finally:
        if a.kind == "kubectl":
            proc.terminate()
        elif proc.stdin:
            proc.stdin.close()
        try:
            proc.wait(timeout=30)
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.wait()
    err = proc.stderr.read() if proc.stderr else ""
    if a.kind != "kubectl" and proc.returncode != 0:
        raise Failed(f"{a.name} {s.name}: exit {proc.returncode}: {err[-2000:]}")
    rec = {"samples_ns": samples, "bytes": nbytes, "reader_cpu_ns": reader_cpu}
    window.into(rec)
    check(rec, s, opts, a)
    return rec


def run_one(a: Adapter, s: Scenario, args, ctx: dict, server: suite.ServerCpu,
            rnd: int) -> dict:
    load0 = os.getloadavg()[0]
    if a.kind == "program":
        rec = run_program(a, s, args, ctx, server)
    elif s.name in PF:
        rec = run_local(a, s, args, ctx, server)
    elif s.name == "exec_echo":
        rec = kubectl_exec_echo(a, s, args, ctx, server)
    else:
        rec = kubectl_exec_interactive(a, s, args, ctx, server)
    rec.update({"round": rnd, "adapter": a.name, "scenario": s.name,
                "loadavg": [round(load0, 2), round(os.getloadavg()[0], 2)]})
    derive(rec)
    return rec


def derive(rec: dict) -> None:
    """Per-iteration figures of one run."""
    xs = sorted(rec["samples_ns"])
    n = len(xs)
    rec["p50_ms"] = suite.percentile(xs, 0.5) / 1e6
    rec["p99_ms"] = suite.percentile(xs, 0.99) / 1e6
    rec["cpu_ms_per_op"] = rec["cpu_ns"] / n / 1e6
    if "server_cpu_ns" in rec:
        rec["server_cpu_ms_per_op"] = rec["server_cpu_ns"] / n / 1e6
    if rec["scenario"] == "pf_download":
        mb = rec["bytes"] / 1e6
        # Each download's rate; the median of them.
        per = rec["bytes"] / n
        rec["mb_per_s"] = statistics.median(per / (x / 1e9) / 1e6 for x in xs)
        rec["cpu_ms_per_mb"] = rec["cpu_ns"] / 1e6 / mb
        if "server_cpu_ns" in rec:
            rec["server_cpu_ms_per_mb"] = rec["server_cpu_ns"] / 1e6 / mb
        if "reader_cpu_ns" in rec:
            rec["reader_cpu_ms_per_mb"] = rec["reader_cpu_ns"] / 1e6 / mb


# ------------------------------------------------------------------------------------------
# Report


def median(records: list[dict], adapter: str, scenario: str, key: str) -> float | None:
    vs = [r[key] for r in records
          if r["adapter"] == adapter and r["scenario"] == scenario and key in r]
    return statistics.median(vs) if vs else None


def ratio(records: list[dict], scenario: str, key: str, base: str,
          other: str) -> tuple[float, float, float] | None:
    """base's value over other's within each round: median, min, max over rounds."""
    rs = []
    for rnd in sorted({r["round"] for r in records}):
        a = [r[key] for r in records if r["round"] == rnd and r["adapter"] == base
             and r["scenario"] == scenario and key in r]
        b = [r[key] for r in records if r["round"] == rnd and r["adapter"] == other
             and r["scenario"] == scenario and key in r]
        if a and b and b[0]:
            rs.append(a[0] / b[0])
    return (statistics.median(rs), min(rs), max(rs)) if rs else None


def fmt(v: float | None, digits: int = 2) -> str:
    if v is None:
        return "–"
    return f"{v:,.{digits}f}"


def fmt_ratio(r: tuple[float, float, float] | None) -> str:
    if r is None:
        return "–"
    return f"{r[0]:.2f}× ({r[1]:.2f}–{r[2]:.2f})"


def write_report(out: Path, records: list[dict], selected: list[Adapter],
                 env: dict[str, str], args) -> None:
    rounds = len({r["round"] for r in records})
    names = [a.name for a in selected]
    lines = [
        "# Streaming benchmark: exec and port-forward", "",
        f"Medians over {rounds} round(s), one process per (round, adapter, scenario); ratios "
        "(kubex over each peer, and kubex-local over kubectl) are taken within a round, median "
        "(min–max) over rounds. Latencies are per "
        "iteration (p50 and p99 of each run, then the median over rounds); CPU is the client "
        "process's user + system time over the measured iterations, from /proc (kubectl "
        "exec_echo: each whole kubectl process, start included); peak RSS is the process's "
        "VmHWM over the iterations (kubectl exec_echo: the largest kubectl process); results.jsonl "
        "also has its RSS as the iterations started (rss_loop_kb). Server CPU "
        "is kube-apiserver + testenv's process (etcd and the simulated kubelet) above idle. "
        "Method: `benchmarks/suite/streaming.py`'s docstring.", "",
        "| | |", "|---|---|",
    ] + [f"| {k} | {v} |" for k, v in env.items()] + [""]
    for a in selected:
        lines.append(f"- `{a.name}`: {a.label}")
    lines.append("")
    for s in SCENARIOS:
        present = [n for n in names if median(records, n, s.name, "p50_ms") is not None]
        if not present:
            continue
        it = next((r for r in records if r["scenario"] == s.name), {})
        n = len(it.get("samples_ns", []))
        lines += [f"## {s.name}", ""]
        if s.name == "pf_download":
            mb = it.get("bytes", 0) / max(n, 1) / 1e6
            lines += [f"{n} downloads of {mb:,.0f} MB per run.", "",
                      "| adapter | MB/s | client CPU ms/MB | reader CPU ms/MB | server CPU ms/MB "
                      "| peak RSS MB |", "|---|---:|---:|---:|---:|---:|"]
            for a in present:
                lines.append(
                    f"| {a} | {fmt(median(records, a, s.name, 'mb_per_s'), 0)} | "
                    f"{fmt(median(records, a, s.name, 'cpu_ms_per_mb'))} | "
                    f"{fmt(median(records, a, s.name, 'reader_cpu_ms_per_mb'))} | "
                    f"{fmt(median(records, a, s.name, 'server_cpu_ms_per_mb'))} | "
                    f"{fmt((median(records, a, s.name, 'hwm_kb') or 0) / 1024, 1)} |")
            keys = [("mb_per_s", "throughput"), ("cpu_ms_per_mb", "CPU/MB"),
                    ("hwm_kb", "peak RSS")]
        else:
            lines += [f"{n} {s.unit}s per run.", "",
                      f"| adapter | p50 ms | p99 ms | client CPU ms/{s.unit} | server CPU "
                      f"ms/{s.unit} | peak RSS MB |", "|---|---:|---:|---:|---:|---:|"]
            for a in present:
                lines.append(
                    f"| {a} | {fmt(median(records, a, s.name, 'p50_ms'), 3)} | "
                    f"{fmt(median(records, a, s.name, 'p99_ms'), 3)} | "
                    f"{fmt(median(records, a, s.name, 'cpu_ms_per_op'), 3)} | "
                    f"{fmt(median(records, a, s.name, 'server_cpu_ms_per_op'), 3)} | "
                    f"{fmt((median(records, a, s.name, 'hwm_kb') or 0) / 1024, 1)} |")
            keys = [("p50_ms", "p50"), ("p99_ms", "p99"), ("cpu_ms_per_op", "CPU/op"),
                    ("hwm_kb", "peak RSS")]
        pairs = [("kubex", p) for p in present if p != "kubex" and "kubex" in present]
        if "kubex-local" in present and "kubectl" in present:
            pairs.append(("kubex-local", "kubectl"))  # both forward a local port
        if pairs:
            lines += ["", "| ratio | " + " | ".join(k[1] for k in keys) + " |",
                      "|---|" + "---:|" * len(keys)]
            for base, p in pairs:
                lines.append(f"| {base} / {p} | " + " | ".join(
                    fmt_ratio(ratio(records, s.name, k[0], base, p)) for k in keys) + " |")
        lines.append("")
    others = sorted(r["other_cpus"] for r in records if "other_cpus" in r)
    if others:
        steal = max(r.get("steal_cpus", 0) for r in records)
        lines += [
            "Other work on the machine during the measured loops (busy CPU time besides the "
            "client, this driver and the serving control plane, in CPUs): median "
            f"{statistics.median(others):.2f}, max {others[-1]:.2f}; hypervisor steal at most "
            f"{steal:.2f} CPUs. The `other_cpus` of each run is in results.jsonl.", ""]
    (out / "report.md").write_text("\n".join(lines))


# ------------------------------------------------------------------------------------------
# Set-up of the pod and the run


def kubectl(kubeconfig: str, *args: str, stdin: str | None = None) -> str:
    return subprocess.run(["kubectl", "--kubeconfig", kubeconfig, *args], input=stdin,
                          capture_output=True, text=True, check=True).stdout


def pod_manifest() -> str:
    return json.dumps({
        "apiVersion": "v1", "kind": "Pod", "metadata": {"name": POD},
        "spec": {"containers": [{
            "name": "server", "image": "registry.k8s.io/pause:3.10",
            "ports": [{"name": "echo", "containerPort": ECHO_PORT},
                      {"name": "http", "containerPort": HTTP_PORT}]}]}})


def versions(selected: list[Adapter], build_dir: Path) -> dict[str, str]:
    def out(cmd: list[str]) -> str:
        try:
            return subprocess.run(cmd, capture_output=True, text=True, timeout=30,
                                  cwd=ROOT).stdout.strip()
        except (OSError, subprocess.SubprocessError):
            return "?"
    v = {}
    cache = build_dir / "CMakeCache.txt"
    if cache.exists():
        text = cache.read_text()
        kind = re.search(r"^CMAKE_BUILD_TYPE:STRING=(.*)$", text, re.M)
        v["kubex build"] = f"{build_dir.name} ({kind.group(1) if kind else '?'})"
    names = {a.name for a in selected}
    for a in selected:
        if a.kind == "kubectl":
            text = out([a.command[0], "version", "--client", "-o", "json"])
            m = re.search(r'"gitVersion":\s*"([^"]+)"', text)
            v["kubectl"] = (m.group(1) if m else "?") + " (adapters/kubectl/, on its own)"
    if "client-go" in names:
        v["go"] = out(["go", "version"])
    if "kube-rs" in names:
        v["rust"] = out(["rustc", "--version"])
    return v


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--build-dir", type=Path, default=ROOT / "build" / "bench")
    ap.add_argument("--out", type=Path, default=ROOT / "benchmarks" / "streaming")
    ap.add_argument("--adapters", default="kubex,kubex-local,client-go,kube-rs,kubectl")
    ap.add_argument("--scenarios", default=",".join(s.name for s in SCENARIOS))
    ap.add_argument("--rounds", type=int, default=3)
    ap.add_argument("--small", action="store_true",
                    help="CI's smoke: few iterations, 5 MB downloads, one round")
    ap.add_argument("--pf-bytes", type=int, default=200_000_000)
    ap.add_argument("--pf-warmup-bytes", type=int, default=1_000_000)
    ap.add_argument("--pf-iters", type=int, default=0, help="downloads per run (default 3)")
    ap.add_argument("--line-bytes", type=int, default=64)
    ap.add_argument("--seed", type=int, default=1, help="of the per-round adapter order")
    ap.add_argument("--no-pin", action="store_true")
    ap.add_argument("--idle-seconds", type=float, default=5.0,
                    help="the control plane's idle CPU is measured this long first")
    ap.add_argument("--timeout", type=float, default=900, help="per process")
    ap.add_argument("--setup-only", action="store_true")
    args = ap.parse_args()
    if args.small:
        args.rounds = 1
        args.pf_bytes = min(args.pf_bytes, 5_000_000)
        args.idle_seconds = min(args.idle_seconds, 1.0)
    wanted = args.adapters.split(",")
    selected = [a for a in adapters(args.build_dir.resolve()) if a.name in wanted]
    if len(selected) != len(wanted):
        ap.error(f"unknown adapters in {args.adapters}")
    scenarios = [SCENARIO_BY_NAME[n] for n in args.scenarios.split(",")
                 if n in SCENARIO_BY_NAME]
    if len(scenarios) != len(args.scenarios.split(",")):
        ap.error(f"unknown scenarios in {args.scenarios}")
    set_up(selected)
    if args.setup_only:
        return 0
    kubeconfig = os.environ.get("KUBEX_TESTENV_KUBECONFIG", "")
    testenv_dir = os.environ.get("KUBEX_TESTENV_DIR", "")
    testenv_bin = os.environ.get("KUBEX_TESTENV_BIN", "")
    if not (kubeconfig and testenv_dir and testenv_bin):
        ap.error("run under scripts/with-testenv.sh (KUBEX_TESTENV_* are not set)")
    for a in selected:
        if not Path(a.command[0]).exists():
            ap.error(f"{a.command[0]} is missing (build it: cmake --build BUILD --target "
                     "kubex-bench-kubex-streaming)")
    command_line = " ".join(sys.argv)
    started = time.monotonic()
    namespace = f"streaming-{random.SystemRandom().getrandbits(24):06x}"
    kubectl(kubeconfig, "create", "namespace", namespace)
    kubectl(kubeconfig, "-n", namespace, "create", "-f", "-", stdin=pod_manifest())
    kubectl(kubeconfig, "-n", namespace, "wait", "--for=jsonpath={.status.phase}=Running",
            "--timeout=120s", f"pod/{POD}")
    ctx = {"kubeconfig": kubeconfig, "namespace": namespace}
    version = subprocess.run([testenv_bin, "version"], capture_output=True, text=True).stdout
    server = suite.ServerCpu(testenv_dir)
    pinning = suite.Pinning(testenv_dir, not args.no_pin)
    records: list[dict] = []
    rng = random.Random(args.seed)
    try:
        server.measure_idle(args.idle_seconds)
        for rnd in range(1, args.rounds + 1):
            for s in scenarios:
                order = [a for a in selected if s.name in a.scenarios]
                rng.shuffle(order)
                for a in order:
                    try:
                        rec = run_one(a, s, args, ctx, server, rnd)
                    except Failed as e:
                        sys.exit(f"streaming.py: round {rnd}: {e}")
                    records.append(rec)
                    extra = (f"{rec['mb_per_s']:,.0f} MB/s, {rec['cpu_ms_per_mb']:.2f} ms "
                             "CPU/MB" if s.name == "pf_download" else
                             f"p50 {rec['p50_ms']:.3f} ms, p99 {rec['p99_ms']:.3f} ms, "
                             f"{rec['cpu_ms_per_op']:.3f} ms CPU/op")
                    print(f"round {rnd} {s.name:<17} {a.name:<12} {extra}, peak RSS "
                          f"{rec['hwm_kb'] / 1024:.1f} MB, other load "
                          f"{rec.get('other_cpus', 0):.2f} CPUs", flush=True)
    finally:
        pinning.undo()
        subprocess.run(["kubectl", "--kubeconfig", kubeconfig, "delete", "namespace", namespace,
                        "--wait=false"], capture_output=True)
    env = suite.environment(argparse.Namespace(command_line=command_line,
                                               library_defaults=False),
                            version.strip(), pinning.text)
    env.pop("pass", None)
    env.update(versions(selected, args.build_dir.resolve()))
    env["idle control plane"] = f"{server.idle_ns_per_s / 1e6:.1f} ms CPU/s (subtracted)"
    args.out.mkdir(parents=True, exist_ok=True)
    with open(args.out / "results.jsonl", "w") as f:
        f.write(json.dumps({"kind": "environment", **env}) + "\n")
        for r in records:
            f.write(json.dumps({"kind": "run", **r}) + "\n")
    write_report(args.out, records, selected, env, args)
    print(f"==> streaming benchmark done in {time.monotonic() - started:.0f} s: "
          f"{args.out / 'report.md'}", flush=True)
    print((args.out / "report.md").read_text(), flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
