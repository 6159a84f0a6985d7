#!/usr/bin/env python3
# SPDX-License-Identifier: Apache-2.0
"""CI's check of the benchmark harness (ctest bench_smoke_test, under scripts/with-testenv.sh):
kubex and L1 on two scenarios with few iterations must produce the report, the CSV and the raw
results; the runtime, controller and streaming benchmarks run every adapter small; and the
validity checks must fail a run whose lists come back short.

    benchmarks/suite/smoke_test.py BUILD_DIR OUT_DIR
"""

import csv
import json
import os
import subprocess
import sys
import unittest
from pathlib import Path

RUN = Path(__file__).with_name("run.py")
RUNTIME = Path(__file__).with_name("runtime.py")
CONTROLLER = Path(__file__).with_name("controller.py")
STREAMING = Path(__file__).with_name("streaming.py")
sys.path.insert(0, str(RUN.parent))
from run import process_tree, testenv_root  # noqa: E402
BUILD, OUT = Path(sys.argv[1]), Path(sys.argv[2])
# Under ASan the sanitizer owns malloc, and the memory pass's preloaded counter cannot count.
SANITIZED = "KUBEX_SANITIZE:BOOL=ON" in (BUILD / "CMakeCache.txt").read_text()


def run(*args: str) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, str(RUN), "--build-dir", str(BUILD), *args],
                          capture_output=True, text=True, timeout=600)


class Smoke(unittest.TestCase):
    def test_the_runtime_benchmark_runs_every_adapter_and_writes_its_report(self):
        out = OUT / "runtime"
        done = subprocess.run(
            [sys.executable, str(RUNTIME), "--build-dir", str(BUILD), "--out", str(out),
             "--pods", "30", "--events", "200", "--rounds", "1", "--timeout", "120"],
            capture_output=True, text=True, timeout=900)
        self.assertEqual(done.returncode, 0, done.stdout + done.stderr)
        records = [json.loads(line) for line in (out / "results.jsonl").read_text().splitlines()]
        seen = {(r["adapter"], r["run"]) for r in records}
        self.assertEqual(len(seen), 5 * 5, seen)  # kubex, kubex-h1, client-go (2), kube-rs
        for r in records:
            self.assertEqual(r.get("objects", r.get("events")), 200 if "events" in r else 30, r)
        report = (out / "report.md").read_text()
        for section in ("## reflector_sync", "## reflector_memory", "## watch_throughput"):
            self.assertIn(section, report)


    def test_the_controller_benchmark_runs_every_adapter_and_writes_its_report(self):
        out = OUT / "controller"
        done = subprocess.run(
            [sys.executable, str(CONTROLLER), "--build-dir", str(BUILD), "--out", str(out),
             "--count", "20", "--samples", "3", "--settle-ms", "200", "--rounds", "1",
             "--timeout", "120"],
            capture_output=True, text=True, timeout=900)
        self.assertEqual(done.returncode, 0, done.stdout + done.stderr)
        records = [json.loads(line) for line in (out / "results.jsonl").read_text().splitlines()]
        self.assertEqual({r["adapter"] for r in records}, {"kubex", "controller-runtime", "kube-rs"})
        for r in records:
            self.assertGreaterEqual(r["reconciles"], 20, r)
            self.assertGreater(r["latency_p50_ms"], 0, r)
        self.assertIn("## kubex against each peer", (out / "report.md").read_text())

    def test_the_streaming_benchmark_runs_every_adapter_and_writes_its_report(self):
        out = OUT / "streaming"
        done = subprocess.run(
            [sys.executable, str(STREAMING), "--build-dir", str(BUILD), "--out", str(out),
             "--small", "--timeout", "120"],
            capture_output=True, text=True, timeout=900)
        self.assertEqual(done.returncode, 0, done.stdout + done.stderr)
        records = [json.loads(line) for line in (out / "results.jsonl").read_text().splitlines()]
        self.assertEqual(records[0]["kind"], "environment")
        self.assertEqual(records[0]["kube-apiserver"], "v1.35.4")
        runs = records[1:]
        scenarios = ("exec_echo", "exec_interactive", "pf_download", "pf_echo")
        expected = {(a, s) for a in ("kubex", "client-go", "kube-rs", "kubectl")
                    for s in scenarios}
        expected |= {("kubex-local", s) for s in ("pf_download", "pf_echo")}
        self.assertEqual({(r["adapter"], r["scenario"]) for r in runs}, expected)
        for r in runs:
            self.assertGreater(r["p50_ms"], 0, r)
            self.assertGreater(r["hwm_kb"], 0, r)
            self.assertGreaterEqual(r["cpu_ns"], 0, r)
        for r in (r for r in runs if r["scenario"] == "pf_download"):
            self.assertEqual(r["bytes"], 2 * 5_000_000, r)  # two downloads of 5 MB
            self.assertGreater(r["mb_per_s"], 0, r)
        report = (out / "report.md").read_text()
        for scenario in scenarios:
            self.assertIn(f"## {scenario}", report)
        self.assertIn("| kubex / client-go |", report)
        self.assertIn("| kubex-local / kubectl |", report)

    def test_smoke_run_writes_every_artifact(self):
        out = OUT / "smoke"
        done = run("--smoke", "--out", str(out), *([] if SANITIZED else ["--memory"]))
        self.assertEqual(done.returncode, 0, done.stdout + done.stderr)
        report = (out / "report.md").read_text()
        # Two CPUs or more: the control plane and the clients ran on different ones, and the
        # control plane (shared with the other integration tests) has every CPU back.
        cpus = sorted(os.sched_getaffinity(0))
        if len(cpus) >= 2:
            self.assertIn(f"| pinning | control plane on CPU {cpus[0]}", report)
        # Every thread of the testenv process tree (env.json's apiserverPID may be stale: the
        # testenv tests restart the apiserver).
        threads = 0
        for pid in process_tree(testenv_root(os.environ["KUBEX_TESTENV_DIR"])):
            for task in Path(f"/proc/{pid}/task").glob("[0-9]*"):
                try:
                    affinity = os.sched_getaffinity(int(task.name))
                except ProcessLookupError:
                    continue  # ended meanwhile
                self.assertEqual(affinity, set(cpus), f"pid {pid} thread {task.name}")
                threads += 1
        self.assertGreater(threads, 1)
        # The memory pass counted kubex's allocations.
        if not SANITIZED:
            self.assertIn("## Memory pass", report)
            self.assertRegex(report, r"\| list_small \| kubex \(C\+\+, typed\) \| malloc shim "
                                     r"\| [0-9,]+ \|")
        self.assertIn("## Headline", report)
        self.assertIn("| single_get | ", report)
        self.assertIn("### `list_small`", report)
        self.assertIn("kube-apiserver | v1.35.4", report)
        with open(out / "report.csv") as f:
            rows = list(csv.DictReader(f))
        self.assertEqual({(r["adapter"], r["scenario"]) for r in rows},
                         {(a, s) for a in ("L1", "kubex") for s in ("single_get", "list_small")})
        for r in rows:
            self.assertGreater(int(r["wall_p50_ns"]), 0, r)
            self.assertGreater(float(r["cpu_seconds"]), 0, r)
        kubex_list = next(r for r in rows if r["adapter"] == "kubex" and
                          r["scenario"] == "list_small")
        self.assertEqual(kubex_list["items_mean"], "10.00")
        with open(out / "results.jsonl") as f:
            head, *results = [json.loads(line) for line in f]
        self.assertEqual(head["k8s_version"], "v1.35.4")  # the run's facts come first
        self.assertEqual([a["name"] for a in head["adapters"]], ["L1", "kubex"])
        timing = [r for r in results if r["pass"] == "timing"]
        self.assertEqual(len(timing), 6)  # L1 first and last around kubex, per scenario
        self.assertTrue(all(r["ok"] and not r["problems"] for r in results), results)
        # The control plane's CPU over each measured loop, read at the adapters' phase lines
        # (in 10 ms ticks: a short loop may read 0, but not every one of them).
        for r in timing:
            self.assertGreaterEqual(r["result"]["server_cpu_ns"], 0, r)
            self.assertGreaterEqual(r["result"]["server_idle_ns"], 0, r)
        self.assertGreater(sum(r["result"]["server_cpu_ns"] for r in timing), 0, timing)
        self.assertIn("server CPU ms/op", report)
        memory = [r for r in results if r["pass"] == "memory"]
        self.assertEqual({(r["adapter"], r["scenario"]) for r in memory},
                         set() if SANITIZED else
                         {(a, s) for a in ("L1", "kubex") for s in ("single_get", "list_small")})
        for r in memory:
            self.assertIn("allocs_per_op", r["result"], r)
            if r["adapter"] == "kubex":  # L1 may well allocate nothing per request
                self.assertGreater(r["result"]["allocs_per_op"], 0, r)
        l1_get = next(r for r in results if r["adapter"] == "L1")
        self.assertGreater(l1_get["result"]["bytes_per_op"], 1000)  # a whole pod
        # No credential in anything the harness wrote or printed.
        token = subprocess.run(
            ["kubectl", "config", "view", "--raw", "--minify", "-o",
             "jsonpath={.users[0].user.token}"], capture_output=True, text=True).stdout
        self.assertTrue(token)
        for f in out.iterdir():
            if f.is_file():
                self.assertNotIn(token, f.read_text(errors="replace"), f)
        self.assertNotIn(token, done.stdout + done.stderr)

    def test_short_lists_fail_the_validity_check(self):
        # 5 pods and log-emitter: list_small (limit 10) sees 6 items, not 10.
        out = OUT / "short"
        done = run("--smoke", "--pods", "5", "--adapters", "kubex", "--scenarios", "list_small",
                   "--out", str(out))
        self.assertEqual(done.returncode, 1, done.stdout + done.stderr)
        self.assertIn("saw 6 items, expected 10", (out / "report.md").read_text())


if __name__ == "__main__":
    unittest.main(argv=sys.argv[:1], verbosity=2)
