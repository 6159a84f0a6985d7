#!/usr/bin/env python3
# SPDX-License-Identifier: Apache-2.0
"""Markdown summary of kubex_codec_bench results (Google Benchmark JSON with aggregates).

Usage: summarize-models.py --revision R --command C --benchmark-args A --load BEFORE AFTER
       [--idle NOTE] codec.json [codec-default-malloc.json] [codec-haswell.json]
       summarize-models.py combine run1/codec.json run2/codec.json ...

Prints machine and version facts, the command, one table of medians per JSON file and the
ratios the models issue sets targets for (typed decode / bare On-Demand walk <= 2.5, encode /
decode <= 1), each computed from rows of the same run.
"""

import argparse
import json
import os
import platform
import re
import statistics
import subprocess


def sh(*cmd):
    try:
        return subprocess.run(cmd, capture_output=True, text=True, check=False).stdout.strip()
    except OSError:
        return ""


def machine():
    info = {}
    with open("/proc/cpuinfo", encoding="utf-8") as f:
        for line in f:
            if not line.strip():
                break  # the first CPU is enough
            k, _, v = line.partition(":")
            info[k.strip()] = v.strip()
    flags = set(info.get("flags", "").split())
    simd = ", ".join(x for x in ("avx2", "bmi2", "avx512f", "avx512bw") if x in flags) or "none"
    cpu = (f"{info.get('model name', 'unknown')}, family {info.get('cpu family', '?')} model "
           f"{info.get('model', '?')} stepping {info.get('stepping', '?')}, "
           f"{info.get('cpu MHz', '?')} MHz, {simd}")
    mem_kib = 0
    with open("/proc/meminfo", encoding="utf-8") as f:
        for line in f:
            if line.startswith("MemTotal:"):
                mem_kib = int(line.split()[1])
    osname = platform.platform()
    if os.path.exists("/etc/os-release"):
        with open("/etc/os-release", encoding="utf-8") as f:
            m = re.search(r'^PRETTY_NAME="?([^"\n]*)', f.read(), re.M)
            if m:
                osname = m.group(1)

    def pkg(name):
        v = sh("dpkg-query", "-W", "-f=${Version}", name)
        return v or "not installed"

    return [
        ("CPU", f"{cpu} ({os.cpu_count()} logical CPUs)"),
        ("RAM", f"{mem_kib / 1024 / 1024:.1f} GiB"),
        ("OS", f"{osname}, kernel {platform.release()}"),
        ("Compiler", sh("c++", "--version").splitlines()[0] if sh("c++", "--version") else "?"),
        ("simdjson", f"libsimdjson-dev {pkg('libsimdjson-dev')}"),
        ("Google Benchmark", f"libbenchmark-dev {pkg('libbenchmark-dev')}"),
        ("CMake", sh("cmake", "--version").splitlines()[0] if sh("cmake", "--version") else "?"),
    ]


def load(path):
    with open(path, encoding="utf-8") as f:
        data = json.load(f)
    rows = {}
    for b in data["benchmarks"]:
        if b.get("run_type") != "aggregate":
            continue
        name = b["run_name"].replace("/real_time", "")
        rows.setdefault(name, {})[b["aggregate_name"]] = b
    # Random interleaving shuffles the rows; list them in registration order.
    docs = ["PodList", "MetaList", "Pod"]
    kinds = ["BareWalk", "DomParse", "TypedDecode", "TypedDecodeAndFree", "Encode", "EncodeReuse"]

    def key(name):
        doc, _, kind = name.partition("/")
        return (docs.index(doc) if doc in docs else 99, kinds.index(kind) if kind in kinds else 99,
                name)

    return data["context"], dict(sorted(rows.items(), key=lambda kv: key(kv[0])))


def fmt_time(us):
    return f"{us / 1000:.3f} ms" if us >= 1000 else f"{us:.2f} µs"


def to_us(b, key="real_time"):
    scale = {"ns": 1e-3, "us": 1.0, "ms": 1e3, "s": 1e6}[b["time_unit"]]
    return b[key] * scale


def table(rows):
    out = ["| benchmark | median time | CV | min time | CPU time | MB/s | items/s | allocs/item | "
           "alloc bytes/item |",
           "|---|---:|---:|---:|---:|---:|---:|---:|---:|"]
    for name, aggs in rows.items():
        med = aggs["median"]
        cv = aggs.get("cv")
        cv_s = f"{cv['real_time'] * 100:.1f} %" if cv else "–"
        mbs = med.get("bytes_per_second", 0) / 1e6
        ips = med.get("items_per_second", 0)
        allocs = med.get("allocs/item")
        abytes = med.get("alloc_bytes/item")
        mn = aggs.get("min")
        mn_s = fmt_time(to_us(mn)) if mn else "–"
        head = (f"| {name} | {fmt_time(to_us(med))} | {cv_s} | {mn_s} | "
                f"{fmt_time(to_us(med, 'cpu_time'))} | {mbs:,.0f} | {ips:,.0f} |")
        out.append(head + (f" {allocs:,.1f} | {abytes:,.0f} |" if allocs is not None else " – | – |"))
    return out


RATIOS = [
    # (numerator, denominator, label, target)
    ("TypedDecode", "BareWalk", "typed decode / bare On-Demand walk", 2.5),
    ("TypedDecodeAndFree", "BareWalk", "typed decode + free / bare walk", None),
    ("DomParse", "BareWalk", "simdjson DOM parse / bare walk (context)", None),
    ("Encode", "TypedDecode", "encode / typed decode", 1.0),
    ("EncodeReuse", "TypedDecode", "encode into a reused buffer / typed decode", None),
]


def ratios(rows):
    out = ["| document | ratio | median / median | min / min | target | verdict (median) |",
           "|---|---|---:|---:|---:|---|"]
    for doc in ("PodList", "MetaList", "Pod"):
        for num, den, label, target in RATIOS:
            a, b = rows.get(f"{doc}/{num}"), rows.get(f"{doc}/{den}")
            if not a or not b:
                continue
            r = to_us(a["median"]) / to_us(b["median"])
            rmin = (f"{to_us(a['min']) / to_us(b['min']):.2f}" if "min" in a and "min" in b
                    else "–")
            if target is None:
                verdict, tgt = "", "–"
            else:
                tgt = f"≤ {target:g}"
                verdict = "meets" if r <= target else "**MISSES**"
            out.append(f"| {doc} | {label} | {r:.2f} | {rmin} | {tgt} | {verdict} |")
    return out


def combine(paths):
    """One table over several runs of the same program: the median of the per-run medians and
    the minimum over all repetitions, with the ratios of both."""
    runs = [load(p)[1] for p in paths]
    names = [n for n in runs[0] if all(n in r for r in runs)]
    comb = {}
    for n in names:
        med = statistics.median(to_us(r[n]["median"]) for r in runs)
        mn = min(to_us(r[n]["min"]) for r in runs if "min" in r[n]) if "min" in runs[0][n] else None
        mbs = statistics.median(r[n]["median"].get("bytes_per_second", 0) for r in runs) / 1e6
        comb[n] = (med, mn, mbs, runs[0][n]["median"].get("allocs/item"),
                   runs[0][n]["median"].get("alloc_bytes/item"))
    out = [f"Over {len(paths)} runs: median of the run medians, and minimum over all repetitions.", "",
           "| benchmark | median time | min time | MB/s (median) | allocs/item | alloc bytes/item |",
           "|---|---:|---:|---:|---:|---:|"]
    for n, (med, mn, mbs, allocs, abytes) in comb.items():
        out.append(f"| {n} | {fmt_time(med)} | {fmt_time(mn) if mn else '–'} | {mbs:,.0f} | "
                   f"{allocs:,.1f} | {abytes:,.0f} |" if allocs is not None else
                   f"| {n} | {fmt_time(med)} | {fmt_time(mn) if mn else '–'} | {mbs:,.0f} | – | – |")
    out += ["", "| document | ratio | median / median | min / min | per-run medians | target | "
            "verdict (median) |", "|---|---|---:|---:|---|---:|---|"]
    for doc in ("PodList", "MetaList", "Pod"):
        for num, den, label, target in RATIOS:
            a, b = comb.get(f"{doc}/{num}"), comb.get(f"{doc}/{den}")
            if not a or not b:
                continue
            r = a[0] / b[0]
            rmin = f"{a[1] / b[1]:.2f}" if a[1] and b[1] else "–"
            per = ", ".join(f"{to_us(x[f'{doc}/{num}']['median']) / to_us(x[f'{doc}/{den}']['median']):.2f}"
                            for x in runs)
            tgt = "–" if target is None else f"≤ {target:g}"
            verdict = "" if target is None else ("meets" if r <= target else "**MISSES**")
            out.append(f"| {doc} | {label} | {r:.2f} | {rmin} | {per} | {tgt} | {verdict} |")
    return out


def main():
    import sys
    if len(sys.argv) > 1 and sys.argv[1] == "combine":
        print("\n".join(combine(sys.argv[2:])))
        return
    ap = argparse.ArgumentParser()
    ap.add_argument("--revision", required=True)
    ap.add_argument("--command", required=True)
    ap.add_argument("--benchmark-args", required=True)
    ap.add_argument("--load", nargs=2, required=True)
    ap.add_argument("--idle", default="not checked")
    ap.add_argument("files", nargs="+")
    a = ap.parse_args()

    lines = ["# kubex typed models codec: benchmark run", ""]
    lines += [f"- **{k}**: {v}" for k, v in machine()]
    lines += [f"- **kubex**: {a.revision}",
              f"- **Command**: `{a.command}` (runs each program with `{a.benchmark_args}`)",
              f"- **Load average** (1/5/15 min) before: {a.load[0]}, after: {a.load[1]}; "
              f"idle check: {a.idle}",
              ""]
    for path in a.files:
        ctx, rows = load(path)
        title = os.path.basename(path)
        lines += [f"## {title}", ""]
        facts = [f"simdjson {ctx.get('simdjson_version', '?')}",
                 f"On-Demand implementation `{ctx.get('simdjson_ondemand_implementation', '?')}` "
                 f"(stage 1 and DOM: `{ctx.get('simdjson_active_implementation', '?')}`)",
                 f"MetaList model: {ctx.get('metalist_model', '?')}",
                 f"malloc: {ctx.get('malloc', '?')}",
                 f"Google Benchmark library built as {ctx.get('library_build_type', '?')} "
                 "(the Debian package; the measured code is Release)"]
        if "variant" in ctx:
            facts.insert(0, f"**variant: {ctx['variant']}**")
        lines += ["; ".join(facts), ""]
        lines += table(rows) + [""] + ratios(rows) + [""]
    lines += ["Times are wall-clock medians of the repetitions, and their minimum (interference",
              "only adds time, so on a busy machine the minimum is the better estimate of the",
              "undisturbed cost); CPU time is the median process CPU time, for reference. Verdicts",
              "use the medians. MB/s and items/s are medians. MB = 10^6 bytes; decoders count",
              "input bytes, encoders output bytes. CV is the coefficient of variation of the",
              "repetitions. allocs/item counts operator new calls per pod (per object for Pod) in",
              "the timed loop.", ""]
    print("\n".join(lines))


if __name__ == "__main__":
    main()
