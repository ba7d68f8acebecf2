#!/usr/bin/env python3
"""PyTorch eager's per-op cost next to tfd's Execute, on tiny CPU tensors.

The same calls as tools/bench/op_dispatch_benchmark.cc, so that what is
compared is the dispatch (the arithmetic is a few nanoseconds):

  add       torch.add of two 0-d float tensors      BM_AddScalars
  mm        torch.mm of [1,1] by [1,1]              BM_MatMul1x1
  relu      torch.relu of 4 floats                  BM_Relu4
  bias_add  [1,4] + [4] (broadcast)                 BM_BiasAdd1x4
  conv2d    F.conv2d of [1,1,1,1] by [1,1,1,1]      BM_Conv2D1x1x1x1

each without autograd (inputs that do not require grad; tfd: /plain) and
with it (inputs that require grad, so every call builds a graph node;
tfd: /recording, a GradientTape watching the inputs).

PyTorch figures are timeit medians: each round times `--number` calls and
divides; the figure is the median over the rounds. With --tfd PATH the
script also runs that op_dispatch_benchmark binary, one repetition per
round, alternating with PyTorch's rounds so both sides see the same
machine, and prints the median of each side and their ratio.

Prints one JSON object per line:
  {"op": "add", "autograd": false, "torch_ns": 1200.0, "tfd_ns": 700.0,
   "tfd_over_torch": 0.58}

  /root/.cache/torch-venv/bin/python tools/bench/op_dispatch_torch.py \\
      --tfd bazel-bin/tools/bench/op_dispatch_benchmark --rounds 5
"""

import argparse
import json
import statistics
import subprocess
import sys
import timeit
import warnings

# PyPI's torch wheel warns on import when NumPy is absent; nothing here uses it.
warnings.filterwarnings("ignore", message="Failed to initialize NumPy")
import torch  # noqa: E402
import torch.nn.functional as F  # noqa: E402

# op -> (the tfd benchmark's name, the PyTorch call building its inputs).
CASES = {
    "add": ("BM_AddScalars", lambda g: (torch.add, [torch.tensor(1.0, requires_grad=g),
                                                    torch.tensor(2.0, requires_grad=g)])),
    "mm": ("BM_MatMul1x1", lambda g: (torch.mm, [torch.ones(1, 1, requires_grad=g),
                                                 torch.full((1, 1), 2.0, requires_grad=g)])),
    "relu": ("BM_Relu4", lambda g: (torch.relu, [torch.full((4,), -1.0, requires_grad=g)])),
    "bias_add": ("BM_BiasAdd1x4", lambda g: (torch.add, [torch.ones(1, 4, requires_grad=g),
                                                         torch.full((4,), 0.5, requires_grad=g)])),
    "conv2d": ("BM_Conv2D1x1x1x1", lambda g: (F.conv2d, [torch.ones(1, 1, 1, 1, requires_grad=g),
                                                         torch.full((1, 1, 1, 1), 2.0,
                                                                    requires_grad=g)])),
}


def torch_round(number):
    """One timeit round of every case: {(op, autograd): ns per call}."""
    out = {}
    for op, (_, make) in CASES.items():
        for grad in (False, True):
            fn, args = make(grad)
            fn(*args)  # warm up: first-call dispatch setup is not per-op cost
            seconds = timeit.timeit(lambda: fn(*args), number=number)
            out[(op, grad)] = seconds / number * 1e9
    return out


def tfd_round(binary, min_time):
    """One repetition of the tfd benchmark: {(op, autograd): ns per op}."""
    names = "|".join(name for name, _ in CASES.values())
    proc = subprocess.run(
        [binary, "--benchmark_format=json", f"--benchmark_min_time={min_time}",
         f"--benchmark_filter=({names})/(plain|recording)$"],
        check=True, capture_output=True, text=True)
    by_name = {b["name"]: b for b in json.loads(proc.stdout)["benchmarks"]}
    out = {}
    for op, (name, _) in CASES.items():
        for grad, mode in ((False, "plain"), (True, "recording")):
            b = by_name[f"{name}/{mode}"]
            scale = {"ns": 1.0, "us": 1e3, "ms": 1e6}[b["time_unit"]]
            out[(op, grad)] = b["real_time"] * scale
    return out


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--tfd", help="path of the op_dispatch_benchmark binary")
    parser.add_argument("--rounds", type=int, default=5)
    parser.add_argument("--number", type=int, default=20000,
                        help="PyTorch calls per timeit round")
    parser.add_argument("--min_time", type=float, default=0.2,
                        help="tfd's --benchmark_min_time per benchmark")
    args = parser.parse_args()

    torch_rounds, tfd_rounds = [], []
    for _ in range(args.rounds):
        torch_rounds.append(torch_round(args.number))
        if args.tfd:
            tfd_rounds.append(tfd_round(args.tfd, args.min_time))

    for key in torch_rounds[0]:
        op, grad = key
        record = {"op": op, "autograd": grad,
                  "torch_ns": round(statistics.median(r[key] for r in torch_rounds), 1)}
        if tfd_rounds:
            tfd_ns = statistics.median(r[key] for r in tfd_rounds)
            record["tfd_ns"] = round(tfd_ns, 1)
            record["tfd_over_torch"] = round(tfd_ns / record["torch_ns"], 3)
        print(json.dumps(record), flush=True)
    print(json.dumps({"torch": torch.__version__, "torch_threads": torch.get_num_threads(),
                      "rounds": args.rounds}), flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
