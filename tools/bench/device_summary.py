#!/usr/bin/env python3
"""The summary of tools/device_check.sh: its tests, and tfd's figures against PyTorch's.

Reads, in the output directory of a device check, the results.tsv that
run.sh writes for each part of the tests (tests/: GPU unit and kernel
parity tests, e2e/: end-to-end GPU tests, core/: the core suite with the
GPU as default device; one line per binary: status, seconds, path,
detail) and prints each part's counts and every binary that did not pass.
Then it reads the Google Benchmark JSON
of tfd's benchmarks (matmul.json, fashion_cnn.json, resnet50.json or
resnet50_b128.json; medians of the repetitions) and the JSON lines of
torch_reference.py (torch.jsonl), and prints one row per figure:

  figure  unit  tfd  torch  tfd speed / torch's

where the last column is above 1 when tfd is faster (throughputs divided,
times inverted). Then the training runs of train/results.tsv (one line per
`tfd train` run: status, seconds, policy, and "test_accuracy=A
epochs=D/E device=X" with the reason when it did not pass): status, final
test accuracy, epochs and wall time. Writes the same to summary.json.
Exit status 1 when a figure is missing on either side; with --no-figures
(a pack without benchmarks) there are none to miss.

  python3 tools/bench/device_summary.py OUT_DIR [resnet50|resnet50_b128] [--no-figures]

The tests and the training runs do not change the exit status
(device_check.sh judges them from run.sh's exit status and its own
training verdicts); they are in summary.json under "tests" and "training".
"""

import json
import os
import sys


def medians(out, name):
    """run_name -> the median aggregate entry of a Google Benchmark JSON."""
    try:
        with open(os.path.join(out, name + ".json")) as f:
            runs = json.load(f).get("benchmarks", [])
    except (OSError, ValueError):
        return {}
    return {r["run_name"]: r for r in runs if r.get("aggregate_name") == "median"
            and "error_occurred" not in r}


def torch_figures(out):
    figures = {}
    try:
        with open(os.path.join(out, "torch.jsonl")) as f:
            for line in f:
                if line.startswith("{"):
                    record = json.loads(line)
                    figures[record.get("figure")] = record
    except (OSError, ValueError):
        pass
    return figures


# The parts of device_check.sh's tests: (directory under OUT, label).
TEST_PARTS = (("tests", "GPU unit and kernel parity tests"),
              ("e2e", "end-to-end GPU tests"),
              ("core", "core suite, GPU:0 as default device"))


def test_results(out):
    """part -> {"label", "counts": {status: n}, "not_passed": [lines]}, or
    None for a part that wrote no results.tsv (not run, or not packed)."""
    parts = {}
    for part, label in TEST_PARTS:
        try:
            with open(os.path.join(out, part, "results.tsv")) as f:
                lines = [line.rstrip("\n").split("\t") for line in f if line.strip()]
        except OSError:
            parts[part] = None
            continue
        counts = {}
        not_passed = []
        for fields in lines:
            status, seconds, path, detail = (fields + ["", "", "", ""])[:4]
            counts[status] = counts.get(status, 0) + 1
            if status != "PASS":
                not_passed.append({"status": status, "seconds": seconds,
                                   "binary": path, "detail": detail})
        parts[part] = {"label": label, "counts": counts, "not_passed": not_passed}
    return parts


def print_tests(parts):
    for part, label in TEST_PARTS:
        result = parts.get(part)
        if result is None:
            print("%-38s no results (not run, or not in the pack)" % label)
            continue
        counts = result["counts"]
        total = sum(counts.values())
        others = ", ".join("%d %s" % (n, s) for s, n in sorted(counts.items()) if s != "PASS")
        print("%-38s %d/%d passed%s" % (label, counts.get("PASS", 0), total,
                                       "; " + others if others else ""))
        for entry in result["not_passed"]:
            print("  %-8s %s %s" % (entry["status"], entry["binary"], entry["detail"]))
    print()


def training_results(out):
    """The runs of train/results.tsv as dicts (status, seconds, policy,
    test_accuracy, epochs, device, detail), or None when there is no file
    (the pack had no training)."""
    try:
        with open(os.path.join(out, "train", "results.tsv")) as f:
            lines = [line.rstrip("\n").split("\t") for line in f if line.strip()]
    except OSError:
        return None
    runs = []
    for fields in lines:
        status, seconds, policy, detail = (fields + ["", "", "", ""])[:4]
        run = {"status": status, "seconds": int(seconds) if seconds.isdigit() else None,
               "policy": policy, "detail": detail}
        # "test_accuracy=0.9123 epochs=10/10 device=GPU:0 (why)"
        for word in detail.split(" "):
            key, sep, value = word.partition("=")
            if sep and key in ("test_accuracy", "epochs", "device"):
                run[key] = value
        try:
            run["test_accuracy"] = float(run.get("test_accuracy"))
        except (TypeError, ValueError):
            run["test_accuracy"] = None
        runs.append(run)
    return runs


def print_training(runs):
    if runs is None:
        print("training (tfd train, 10 epochs)        no results (not run, or not in the pack)")
        print()
        return
    print("%-38s %-9s %10s %8s %8s" % ("training (tfd train)", "status", "test acc",
                                        "epochs", "wall s"))
    for run in runs:
        accuracy = run["test_accuracy"]
        print("%-38s %-9s %10s %8s %8s" % (
            "Fashion CNN %s on %s" % (run["policy"], run.get("device", "?")), run["status"],
            "-" if accuracy is None else "%.4f" % accuracy, run.get("epochs", "-"),
            "-" if run["seconds"] is None else run["seconds"]))
        reason = run["detail"].partition(" (")[2]
        reason = reason[:-1] if reason.endswith(")") else reason
        if run["status"] != "PASS" and reason:
            print("  %s" % reason)
    print()


def first(runs, prefix):
    return next((v for k, v in sorted(runs.items()) if k.startswith(prefix)), None)


def milliseconds(entry):
    """Google Benchmark's real_time, in its time_unit, as milliseconds."""
    scale = {"ns": 1e-6, "us": 1e-3, "ms": 1.0, "s": 1e3}[entry.get("time_unit", "ns")]
    return entry["real_time"] * scale


def rows(out, resnet_name):
    """(figure, unit, tfd, torch, higher_is_better) per figure."""
    torch = torch_figures(out)
    matmul = first(medians(out, "matmul"), "BM_MatMul<bfloat16>/8192")
    result = [("MatMul 8192^3 bf16", "TFLOP/s", matmul and matmul["FLOP/s"] / 1e12,
               torch.get("matmul_8192_bf16", {}).get("value"), True)]
    fashion = medians(out, "fashion_cnn")
    for arg, key, label in (("0", "f32", "float32"), ("1", "bf16", "mixed_bfloat16")):
        step = first(fashion, "BM_FashionCnnTrainStep/" + arg)
        result.append(("Fashion CNN step b256 " + label, "ms", step and milliseconds(step),
                       torch.get("fashion_cnn_train_" + key, {}).get("value"), False))
    resnet = first(medians(out, resnet_name), "BM_ResNet50TrainStep/")
    reference = torch.get("resnet50_train_bf16", {})
    batch = reference.get("batch", 128 if resnet_name.endswith("b128") else 256)
    result.append(("ResNet-50 step b%d mixed_bfloat16" % batch, "images/s",
                   resnet and resnet["images/s"], reference.get("value"), True))
    return result, torch


def main(argv):
    if len([a for a in argv[1:] if a != "--no-figures"]) < 1:
        print(__doc__, file=sys.stderr)
        return 2
    with_figures = "--no-figures" not in argv[1:]
    args = [a for a in argv[1:] if a != "--no-figures"]
    out = args[0]
    resnet_name = args[1] if len(args) > 1 else "resnet50"
    tests = test_results(out)
    print_tests(tests)
    training = training_results(out)
    print_training(training)
    if not with_figures:
        print("figures: none (no benchmarks in this pack)")
        with open(os.path.join(out, "summary.json"), "w") as f:
            json.dump({"figures": [], "torch": {}, "tests": tests, "training": training}, f,
                      indent=1)
        return 0
    table, torch = rows(out, resnet_name)

    def fmt(v):
        return "-" if v is None else "%.4g" % v

    print("%-38s %-9s %10s %10s  %s" % ("figure", "unit", "tfd", "torch", "tfd speed / torch's"))
    figures = []
    for figure, unit, ours, theirs, higher in table:
        ratio = None
        if ours and theirs:
            ratio = ours / theirs if higher else theirs / ours
        print("%-38s %-9s %10s %10s  %s" % (figure, unit, fmt(ours), fmt(theirs), fmt(ratio)))
        figures.append({"figure": figure, "unit": unit, "tfd": ours, "torch": theirs,
                        "tfd_speed_over_torch": ratio})
    for record in torch.values():
        if "error" in record:
            print("torch error: %s: %s" % (record.get("figure"), record["error"]))
    info = torch.get("torch_info", {})
    if info:
        print("torch %s on %s" % (info.get("torch"), info.get("gpu", info.get("device"))))
    with open(os.path.join(out, "summary.json"), "w") as f:
        json.dump({"figures": figures, "torch": info, "tests": tests, "training": training}, f,
                  indent=1)
    missing = [f["figure"] for f in figures if f["tfd"] is None or f["torch"] is None]
    if missing:
        print("missing: " + ", ".join(missing))
    return 1 if missing else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
