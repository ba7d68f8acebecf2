#!/usr/bin/env python3
"""TensorBoard interop: TensorBoard's own readers load tfd's event files.

event_file_interop (the C++ half) writes a log directory with both scalar
forms; this script loads it with
1. EventFileLoader, record by record: CRCs, the file_version first event;
2. EventAccumulator (TensorBoard's classic loader): the simple_value scalars;
3. plugin_event_accumulator.EventAccumulator (what the scalars dashboard
   reads through): every tag as a rank-0 float32 tensor with "scalars"
   plugin metadata and the SCALAR data class.
Each value is compared with the formulas in event_file_interop.cc.

Run by tools/interop.sh from the repository root (it needs TensorBoard from
the interop venv and bazel-bin/tests/interop/event_file_interop). Exit
status 0 when every check passes.
"""
import os
import subprocess
import sys
import tempfile

import numpy as np
from tensorboard.backend.event_processing import event_accumulator
from tensorboard.backend.event_processing import event_file_loader
from tensorboard.backend.event_processing import plugin_event_accumulator
from tensorboard.compat.proto import summary_pb2
from tensorboard.util import tensor_util

EXPECTED = {
    "loss": {s: np.float32(1.0) / np.float32(s + 1) for s in range(10)},
    "accuracy": {s: np.float32(s) / np.float32(10.0) for s in range(10)},
    "lr": {s: np.float32(0.1) * np.float32(0.5) ** s for s in range(5)},
}


def check(condition, message):
    if not condition:
        raise AssertionError(message)


def check_values(tag, got):
    """got: {step: value}; must match EXPECTED[tag] to float32 rounding."""
    want = EXPECTED[tag]
    check(sorted(got) == sorted(want), f"{tag}: steps {sorted(got)} != {sorted(want)}")
    for step, value in got.items():
        check(np.isclose(value, want[step], rtol=1e-6, atol=0),
              f"{tag} step {step}: {value} != {want[step]}")


def check_raw_files(logdir):
    files = sorted(f for f in os.listdir(logdir) if "tfevents" in f)
    check(len(files) == 2, f"expected 2 event files, found {files}")
    for name in files:
        events = list(event_file_loader.EventFileLoader(os.path.join(logdir, name)).Load())
        # TensorBoard's loader stops quietly at a bad checksum, so a count
        # short of file_version + every scalar means a broken record.
        want = 1 + (5 if name.endswith(".v1") else 20)
        check(len(events) == want, f"{name}: {len(events)} events, expected {want}")
        check(events[0].file_version == "brain.Event:2",
              f"{name}: first event is {events[0]}")
        check(all(e.wall_time > 1e9 for e in events), f"{name}: bad wall_time")
        print(f"  {name}: {len(events)} events, first {events[0].file_version}")


def check_classic_accumulator(logdir):
    acc = event_accumulator.EventAccumulator(logdir)
    acc.Reload()
    tags = acc.Tags()
    check(tags["scalars"] == ["lr"], f"classic scalars: {tags['scalars']}")
    check(sorted(tags["tensors"]) == ["accuracy", "loss"], f"classic tensors: {tags['tensors']}")
    check_values("lr", {e.step: e.value for e in acc.Scalars("lr")})
    for tag in ("loss", "accuracy"):
        check_values(tag, {e.step: tensor_util.make_ndarray(e.tensor_proto).item()
                           for e in acc.Tensors(tag)})
    print("  EventAccumulator: lr as scalars, loss/accuracy as tensors")


def check_plugin_accumulator(logdir):
    acc = plugin_event_accumulator.EventAccumulator(logdir)
    acc.Reload()
    check(sorted(acc.Tags()["tensors"]) == ["accuracy", "loss", "lr"],
          f"plugin tensors: {acc.Tags()['tensors']}")
    check(sorted(acc.PluginTagToContent("scalars")) == ["accuracy", "loss", "lr"],
          "scalars plugin does not own every tag")
    for tag in EXPECTED:
        meta = acc.SummaryMetadata(tag)
        check(meta.plugin_data.plugin_name == "scalars", f"{tag}: plugin {meta}")
        check(meta.data_class == summary_pb2.DATA_CLASS_SCALAR, f"{tag}: data class {meta}")
        values = {}
        for e in acc.Tensors(tag):
            array = tensor_util.make_ndarray(e.tensor_proto)
            check(array.shape == () and array.dtype == np.float32,
                  f"{tag}: {array.dtype} {array.shape}")
            values[e.step] = array.item()
        check_values(tag, values)
    print("  plugin EventAccumulator: loss, accuracy, lr as SCALAR float32 series")


def main():
    binary = sys.argv[1] if len(sys.argv) > 1 else "bazel-bin/tests/interop/event_file_interop"
    with tempfile.TemporaryDirectory() as tmp:
        logdir = os.path.join(tmp, "run")
        subprocess.run([binary, logdir], check=True, stdout=subprocess.DEVNULL)
        check_raw_files(logdir)
        check_classic_accumulator(logdir)
        check_plugin_accumulator(logdir)
    print("OK: TensorBoard reads tfd's event files")


if __name__ == "__main__":
    main()
