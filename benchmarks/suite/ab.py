#!/usr/bin/env python3
# SPDX-License-Identifier: Apache-2.0
"""Before/after figures for a change to kubex: builds of the kubex adapter (e.g. one per
commit) against the L1 limit on the same running testenv, alternating runs so that drift hits
every build alike. Prints a Markdown table: median over repetitions of each run's p50 wall time,
client CPU, control-plane CPU and client page faults per operation (a heap given back to the
kernel and faulted in again shows there; older adapters do not report faults: nan), then one
run per build with the allocation counter preloaded.

    scripts/with-testenv.sh --feature-gates=APIResponseCompression=false -- \\
      python3 benchmarks/suite/ab.py before=/tmp/old/kubex-bench-kubex \\
                                      after=build/bench/benchmarks/suite/kubex-bench-kubex

Build an older commit's adapter with `git worktree add /tmp/old <commit>` and
`cmake --preset bench` there. A build may carry the adapter's own options after its path, e.g.
`"gzip=build/bench/benchmarks/suite/kubex-bench-kubex --library-defaults on"` (ask for
compression; the testenv then must not turn it off). The limits and the allocation counter
come from --build-dir.
"""
import argparse
import json
import os
import random
import shlex
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from run import (Pinning, ServerCpu, alloc_shim, anon_rss_growth_bytes,  # noqa: E402
                 connection_target, cpp_adapters, result_line)

SCENARIOS = {  # name: (measured iterations, list size, stream count)
    "single_get": (300, 10, 0),
    "list_namespaces": (300, 0, 0),
    "list_small": (300, 10, 0),
    "list_medium": (100, 100, 0),
    "list_large": (40, 500, 0),
    "list_metadata_only": (100, 100, 0),
    "stream_logs_n_lines": (15, 0, 500),
}
DEFAULT_SCENARIOS = "single_get,list_medium,list_large"


WARMUP = 5


def run_once(command, scenario, namespace, env=None, server=None):
    """One run's result line; with `server`, its server_ms_per_op: the control plane's CPU over
    the whole process (set-up and warm-up included, idle subtracted) per operation."""
    iters, size, count = SCENARIOS[scenario]
    started = time.monotonic()
    before = server.ns() if server else None
    out = subprocess.run(
        command + ["--scenario", scenario, "--namespace", namespace, "--warmup", str(WARMUP),
                   "--warmup-seconds", "0", "--iters", str(iters), "--list-size", str(size),
                   "--stream-count", str(count)],
        capture_output=True, text=True, env=dict(os.environ, **(env or {})), check=True)
    after = server.ns() if server else None
    d = json.loads(result_line(out.stdout.splitlines()))
    if before is not None and after is not None:
        busy = after - before - server.idle_ns_per_s * (time.monotonic() - started)
        d["server_ms_per_op"] = max(0.0, busy) / (d["n"] + WARMUP) / 1e6
    return d


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__,
                                 formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("builds", nargs="+",
                    help="NAME=PATH [OPTIONS] of a kubex-bench-kubex program")
    ap.add_argument("--build-dir", type=Path, default=Path("build/bench"))
    ap.add_argument("--scenarios", default=DEFAULT_SCENARIOS,
                    help=f"comma-separated, of {', '.join(SCENARIOS)}")
    ap.add_argument("--no-pin", action="store_true", help="as run.py's")
    ap.add_argument("--reps", type=int, default=7)
    ap.add_argument("--pods", type=int, default=500)
    args = ap.parse_args()
    kubeconfig = os.environ.get("KUBEX_TESTENV_KUBECONFIG")
    testenv_bin = os.environ.get("KUBEX_TESTENV_BIN")
    if not kubeconfig or not testenv_bin:
        print("ab.py: run it under scripts/with-testenv.sh", file=sys.stderr)
        return 2
    build_dir = args.build_dir.resolve()
    namespace = f"ab-{random.SystemRandom().getrandbits(32):08x}"
    subprocess.run([testenv_bin, "seed", "--kubeconfig", kubeconfig, "--namespace", namespace,
                    "--pods", str(args.pods)], check=True)
    pinning = Pinning(os.environ.get("KUBEX_TESTENV_DIR", ""), not args.no_pin)
    print(f"pinning: {pinning.text}\n")
    try:
        compare(args, build_dir, kubeconfig, namespace)
    finally:
        pinning.undo()
    subprocess.run(["kubectl", "--kubeconfig", kubeconfig, "delete", "namespace", namespace,
                    "--wait=false"], capture_output=True)
    return 0


def compare(args, build_dir: Path, kubeconfig: str, namespace: str) -> None:
    """Runs L1 and every build alternately and prints the table."""
    with tempfile.TemporaryDirectory(prefix="kubex-ab-") as secrets:
        target = connection_target(kubeconfig, Path(secrets))
        l1 = next(a for a in cpp_adapters(build_dir, kubeconfig, target) if a.name == "L1")
        programs = {"L1": l1.command}
        for build in args.builds:
            name, _, spec = build.partition("=")
            path, *options = shlex.split(spec)
            programs[name] = [str(Path(path).resolve()), "--kubeconfig", kubeconfig, *options]
        if not alloc_shim(build_dir).exists():
            sys.exit(f"ab.py: {alloc_shim(build_dir)} is missing: build it with "
                     f"cmake --build {build_dir} --target kubex_bench_alloc")
        shim = {"LD_PRELOAD": str(alloc_shim(build_dir))}
        server = ServerCpu(os.environ.get("KUBEX_TESTENV_DIR", ""))
        server.measure_idle(5)
        print("| scenario | build | wall p50 ms | ×L1 | CPU ms/op | server CPU ms/op "
              "| page faults/op | allocs/op | KiB alloc/op | RSS growth KiB | anonymous KiB |")
        print("|---|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|")
        for scenario in args.scenarios.split(","):
            samples = {name: [] for name in programs}
            for _ in range(args.reps):
                for name, command in programs.items():
                    d = run_once(command, scenario, namespace, server=server)
                    wall = sorted(d["samples_ns"])
                    samples[name].append((wall[len(wall) // 2] / 1e6, d["cpu_ns"] / d["n"] / 1e6,
                                          d.get("server_ms_per_op", float("nan")),
                                          d.get("page_faults_per_op", float("nan"))))
            l1 = statistics.median(s[0] for s in samples["L1"])
            for name, command in programs.items():
                wall = statistics.median(s[0] for s in samples[name])
                cpu = statistics.median(s[1] for s in samples[name])
                srv = statistics.median(s[2] for s in samples[name])
                faults = statistics.median(s[3] for s in samples[name])
                if name == "L1":
                    print(f"| {scenario} | L1 | {wall:.3f} | 1.00× | {cpu:.3f} | {srv:.2f} "
                          f"| {faults:.0f} | | | | |")
                    continue
                m = run_once(command, scenario, namespace, shim)
                anon = anon_rss_growth_bytes(m)
                print(f"| {scenario} | {name} | {wall:.3f} | {wall / l1:.2f}× | {cpu:.3f} "
                      f"| {srv:.2f} | {faults:.0f} | {m['allocs_per_op']:.0f} "
                      f"| {m['alloc_bytes_per_op'] / 1024:.0f} "
                      f"| {m['rss_peak_loop_kb'] - m['rss_ready_kb']} "
                      f"| {'nan' if anon is None else f'{anon / 1024:.0f}'} |", flush=True)


if __name__ == "__main__":
    sys.exit(main())
