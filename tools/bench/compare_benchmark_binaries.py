#!/usr/bin/env python3
"""Two builds of one Google Benchmark binary, side by side in one run.

Runs BASE and NEW alternately (--rounds times each, every run with
--benchmark_repetitions=5), so both see the same machine load, and prints
per benchmark the median of all repetitions of each side and NEW/BASE, for
real time and CPU time. CPU time is the steadier figure on a shared
machine; real time is what a caller waits.

  python3 tools/bench/compare_benchmark_binaries.py BASE NEW --rounds 2 \\
      --filter 'BM_(AddScalars|Relu4)'
"""

import argparse
import json
import statistics
import subprocess
import sys


def run(binary, args):
    """{benchmark name: ([real ns], [cpu ns])} of one run of `binary`."""
    out = subprocess.run(
        [binary, "--benchmark_format=json", "--benchmark_repetitions=5",
         f"--benchmark_min_time={args.min_time}", f"--benchmark_filter={args.filter}"],
        check=True, capture_output=True, text=True).stdout
    times = {}
    for b in json.loads(out)["benchmarks"]:
        if b.get("run_type") == "aggregate":
            continue
        scale = {"ns": 1.0, "us": 1e3, "ms": 1e6, "s": 1e9}[b["time_unit"]]
        real, cpu = times.setdefault(b["run_name"], ([], []))
        real.append(b["real_time"] * scale)
        cpu.append(b["cpu_time"] * scale)
    return times


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("base")
    parser.add_argument("new")
    parser.add_argument("--rounds", type=int, default=1)
    parser.add_argument("--filter", default=".")
    parser.add_argument("--min_time", type=float, default=0.1)
    args = parser.parse_args()

    sides = {args.base: {}, args.new: {}}
    for _ in range(args.rounds):
        for binary, acc in sides.items():
            for name, (real, cpu) in run(binary, args).items():
                r, c = acc.setdefault(name, ([], []))
                r.extend(real)
                c.extend(cpu)

    base, new = sides[args.base], sides[args.new]
    print(f"{'benchmark':32s} {'base real':>10s} {'new real':>10s} {'ratio':>6s}"
          f" {'base cpu':>10s} {'new cpu':>10s} {'ratio':>6s}   (ns, medians of "
          f"{5 * args.rounds})")
    for name in base:
        if name not in new:
            continue
        br, bc = (statistics.median(v) for v in base[name])
        nr, nc = (statistics.median(v) for v in new[name])
        print(f"{name:32s} {br:10.0f} {nr:10.0f} {nr / br:6.2f} {bc:10.0f} {nc:10.0f}"
              f" {nc / bc:6.2f}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
