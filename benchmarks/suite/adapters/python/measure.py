# SPDX-License-Identifier: Apache-2.0
"""What every Python adapter of the benchmark suite shares (standard library only): the command
line, the measured loop's bookkeeping (wall samples, client CPU, RSS, new TCP connections) and
the one JSON line printed for the driver (benchmarks/suite/run.py documents the fields). It
mirrors benchmarks/suite/common/measure.hpp, which the C++ adapters use.

An adapter builds a Plan from sys.argv, a Recorder, and hands its iteration function to
run_sync() or run_async(); main() wraps the whole program (error message to stderr, exit 1).
"""

from __future__ import annotations

import asyncio
import ctypes
import gc
import json
import os
import resource
import socket
import sys
import time
import traceback
from dataclasses import dataclass
from typing import Awaitable, Callable

now_ns = time.perf_counter_ns  # CLOCK_MONOTONIC on Linux, as std::chrono::steady_clock


def cpu_ns() -> int:
    """User plus system CPU time of the whole process (all threads), in nanoseconds."""
    u = resource.getrusage(resource.RUSAGE_SELF)
    return round((u.ru_utime + u.ru_stime) * 1e9)


def proc_status_kb(field: str) -> int:
    """A field of /proc/self/status in KiB (VmRSS, VmHWM); -1 when unavailable."""
    try:
        with open("/proc/self/status") as f:
            for line in f:
                if line.startswith(field + ":"):
                    return int(line.split()[1])
    except OSError:
        pass
    return -1


def announce_phase(phase: str) -> None:
    """Tells the driver that the measured loop starts ("loop") or has ended ("done"), at once,
    so that it can read the control plane's CPU time over the loop alone."""
    sys.stdout.write('{"phase":"%s"}\n' % phase)
    sys.stdout.flush()


def reset_peak_rss() -> None:
    """Resets VmHWM to the current RSS, so that VmHWM afterwards is the peak of what follows."""
    try:
        with open("/proc/self/clear_refs", "w") as f:
            f.write("5")
    except OSError:
        pass


# --- allocations (memory pass) -------------------------------------------------------------
# The memory pass preloads common/alloc_shim.c over malloc and runs Python with
# PYTHONMALLOC=malloc, so that every object allocation (not only pymalloc's arenas) goes through
# malloc and is counted, as for the C++ and Rust adapters. The timing pass preloads nothing.

class AllocCounter:
    def __init__(self) -> None:
        self.snapshot_fn = None
        self.reset_fn = None
        try:
            lib = ctypes.CDLL(None)
            self.snapshot_fn = lib.kubex_bench_alloc_snapshot
            self.reset_fn = lib.kubex_bench_alloc_reset_peak
        except (OSError, AttributeError):
            pass

    def active(self) -> bool:
        return self.snapshot_fn is not None

    def reset_peak(self) -> None:
        self.reset_fn()  # type: ignore[misc]

    def snapshot(self) -> list[int]:
        """count, bytes allocated, live bytes, peak live bytes."""
        out = (ctypes.c_uint64 * 4)()
        self.snapshot_fn(out)  # type: ignore[misc]
        return list(out)


# --- new TCP connections -------------------------------------------------------------------
# None of the three libraries counts the connections it opens, so we count TCP connect()
# calls on Python sockets: asyncio's sock_connect (aiohttp, anyio/httpx) and
# socket.create_connection (urllib3) all end in socket.socket.connect. Counting only.

_connects = 0


def install_connection_counter() -> None:
    global _connects
    original_connect = socket.socket.connect
    original_connect_ex = socket.socket.connect_ex

    def is_tcp(sock: socket.socket) -> bool:
        return sock.family in (socket.AF_INET, socket.AF_INET6) and \
            sock.type == socket.SOCK_STREAM

    def connect(self, address):  # type: ignore[no-untyped-def]
        global _connects
        if is_tcp(self):
            _connects += 1
        return original_connect(self, address)

    def connect_ex(self, address):  # type: ignore[no-untyped-def]
        global _connects
        if is_tcp(self):
            _connects += 1
        return original_connect_ex(self, address)

    socket.socket.connect = connect  # type: ignore[method-assign]
    socket.socket.connect_ex = connect_ex  # type: ignore[method-assign]


def connections_so_far() -> int:
    return _connects


# --- command line --------------------------------------------------------------------------

def parse_args(argv: list[str]) -> dict[str, str]:
    """--name value pairs, any order."""
    values: dict[str, str] = {}
    i = 0
    while i < len(argv):
        key = argv[i]
        if not key.startswith("--") or i + 1 >= len(argv):
            raise ValueError(f"expected --name value pairs, got '{key}'")
        values[key[2:]] = argv[i + 1]
        i += 2
    return values


@dataclass
class Plan:
    """The options of one (adapter, scenario) process."""
    scenario: str
    namespace: str
    warmup: int = 3  # warm-up iterations (at least)
    warmup_s: float = 1.0  # and at least this long
    iters: int = 30  # measured iterations (at most)
    min_iters: int = 20  # even past max_s
    max_s: float = 90.0  # stop measuring after this long, once min_iters are done
    list_size: int = 0  # limit of list scenarios (0: none)
    stream_count: int = 0  # events or lines of streaming scenarios

    @staticmethod
    def from_args(a: dict[str, str]) -> "Plan":
        for key in ("scenario", "namespace", "kubeconfig"):
            if key not in a:
                raise ValueError(f"missing --{key}")
        iters = int(a.get("iters", 30))
        return Plan(
            scenario=a["scenario"],
            namespace=a["namespace"],
            warmup=int(a.get("warmup", 3)),
            warmup_s=float(a.get("warmup-seconds", 1)),
            iters=iters,
            min_iters=min(iters, int(a.get("min-iters", 20))),
            max_s=float(a.get("max-seconds", 90)),
            list_size=int(a.get("list-size", 0)),
            stream_count=int(a.get("stream-count", 0)),
        )


# --- the record ----------------------------------------------------------------------------

class Recorder:
    """The measured loop's record, printed as one JSON line."""

    def __init__(self, plan: Plan) -> None:
        self.plan = plan
        self.facts: dict[str, str] = {}
        self.numbers: dict[str, float] = {}
        self._warm_start = 0
        self._warm_done = 0
        self._rss_ready_kb = -1
        self._rss_ready_anon_kb = -1
        self._rss_done_file_kb = -1
        self._cpu_start = 0
        self._loop_start = 0
        self._cpu_loop_ns = 0
        self._loop_ns = 0
        self._rss_peak_kb = -1
        self._connects_start = 0
        self._alloc = AllocCounter()
        self._alloc_start: list[int] = []
        self.samples: list[int] = []
        self.items: list[int] = []
        self.events: list[int] = []

    def fact(self, key: str, value: str) -> None:
        self.facts[key] = value

    def number(self, key: str, value: float) -> None:
        self.numbers[key] = value

    def warming(self) -> bool:
        """Whether another warm-up iteration is due (call before each)."""
        if self._warm_start == 0:
            self._warm_start = now_ns()
            self._rss_ready_kb = proc_status_kb("VmRSS")
            self._rss_ready_anon_kb = proc_status_kb("RssAnon")
        more = (self._warm_done < self.plan.warmup or
                now_ns() - self._warm_start < self.plan.warmup_s * 1e9)
        if more:
            self._warm_done += 1
        return more

    def begin(self) -> None:
        """Starts the measured loop (after the warm-up)."""
        gc.collect()
        if self._alloc.active():
            self._alloc.reset_peak()
            self._alloc_start = self._alloc.snapshot()
        reset_peak_rss()
        self._connects_start = connections_so_far()
        announce_phase("loop")
        self._cpu_start = cpu_ns()
        self._loop_start = now_ns()

    def measuring(self) -> bool:
        """Whether another measured iteration is due."""
        n = len(self.samples)
        if n >= self.plan.iters:
            return False
        return n < self.plan.min_iters or now_ns() - self._loop_start < self.plan.max_s * 1e9

    def sample(self, wall_ns: int, items: int) -> None:
        self.samples.append(wall_ns)
        self.items.append(items)

    def event(self, ns: int) -> None:
        """Per-event times of streaming scenarios (pooled over iterations)."""
        self.events.append(ns)

    def end(self) -> None:
        """Ends the measured loop."""
        self._cpu_loop_ns = cpu_ns() - self._cpu_start
        self._loop_ns = now_ns() - self._loop_start
        announce_phase("done")
        self._rss_peak_kb = proc_status_kb("VmHWM")
        self._rss_done_file_kb = proc_status_kb("RssFile") + proc_status_kb("RssShmem")
        self.numbers["connections_opened"] = connections_so_far() - self._connects_start
        if self._alloc_start:
            a, s = self._alloc.snapshot(), self._alloc_start
            n = max(1, len(self.samples))
            self.numbers["allocs_per_op"] = (a[0] - s[0]) / n
            self.numbers["alloc_bytes_per_op"] = (a[1] - s[1]) / n
            self.numbers["alloc_peak_live_bytes"] = a[3] - s[2]
            self.numbers["alloc_live_growth_bytes"] = a[2] - s[2]

    def line(self) -> str:
        out: dict[str, object] = {"scenario": self.plan.scenario}
        out.update(self.facts)
        out.update({
            "warmup": self._warm_done,
            "n": len(self.samples),
            "cpu_ns": self._cpu_loop_ns,
            "loop_ns": self._loop_ns,
            "rss_ready_kb": self._rss_ready_kb,
            "rss_peak_loop_kb": self._rss_peak_kb,
            "rss_ready_anon_kb": self._rss_ready_anon_kb,
            "rss_done_file_kb": self._rss_done_file_kb,
        })
        out.update(self.numbers)
        out["items"] = self.items
        out["events_ns"] = self.events
        out["samples_ns"] = self.samples
        return json.dumps(out, separators=(",", ":"))

    def print(self) -> None:
        sys.stdout.write(self.line() + "\n")
        sys.stdout.flush()


# --- the loop ------------------------------------------------------------------------------

def run_sync(rec: Recorder, iteration: Callable[[bool], int]) -> None:
    """Warm-up, then the measured loop; iteration(measured) returns what it saw."""
    while rec.warming():
        iteration(False)
    rec.begin()
    while rec.measuring():
        start = now_ns()
        items = iteration(True)
        rec.sample(now_ns() - start, items)
    rec.end()


async def run_async(rec: Recorder, iteration: Callable[[bool], Awaitable[int]]) -> None:
    """The same loop inside the running event loop."""
    while rec.warming():
        await iteration(False)
    rec.begin()
    while rec.measuring():
        start = now_ns()
        items = await iteration(True)
        rec.sample(now_ns() - start, items)
    rec.end()


def runtime(kind: str) -> str:
    """e.g. "python3.11 asyncio"."""
    return f"python{sys.version_info.major}.{sys.version_info.minor} {kind}"


# --- error handling ------------------------------------------------------------------------

_secrets: list[str] = []


def add_secret(value: str | None) -> None:
    """A value never to print (the bearer token): error messages are scrubbed of it."""
    if value:
        # An Authorization value ("Bearer <token>"): the token alone covers both.
        value = value.removeprefix("Bearer ").strip()
    if value:
        _secrets.append(value)


def _scrub(text: str) -> str:
    for s in _secrets:
        text = text.replace(s, "<redacted>")
    return text


def main(name: str, body: Callable[[dict[str, str]], None]) -> None:
    """Runs body(args) and exits 0; on any error prints a short message (no kubeconfig
    contents, token scrubbed) to stderr and exits 1. KUBEX_BENCH_DEBUG=1 adds the traceback."""
    try:
        args = parse_args(sys.argv[1:])
        install_connection_counter()
        body(args)
    except BaseException as e:  # noqa: BLE001 - the process reports every failure the same way
        if isinstance(e, SystemExit) and not e.code:
            raise
        if os.environ.get("KUBEX_BENCH_DEBUG"):
            sys.stderr.write(_scrub("".join(traceback.format_exception(e))))
        message = _scrub(f"{type(e).__name__}: {e}")
        if len(message) > 1500:
            message = message[:1500] + "..."
        sys.stderr.write(f"{name}: {message}\n")
        sys.stderr.flush()
        sys.exit(1)  # a normal exit, so that the libraries' atexit hooks remove temp CA files


def run_coroutine(coro: Awaitable[None]) -> None:
    """One asyncio event loop for the whole process."""
    asyncio.run(coro)  # type: ignore[arg-type]
