#!/usr/bin/env python3
"""mixed_float16 checkpoint interop between tfd and tf-keras 2.21
(TF_USE_LEGACY_KERAS=1): a model compiled under mixed_float16 trains
through a LossScaleOptimizer around Adam, whose loss scale and good-steps
count are checkpointed with the weights and slots.

1. tfd trains the MLP with one skipped (overflowing) step and saves as its
   C API does (loss_scale_checkpoint_interop write). The keys, dtypes and
   shapes are those tf-keras writes for the same compiled model;
   tf.train.Checkpoint(model=, optimizer=adam).restore() into the Keras
   model passes assert_existing_objects_matched and assert_consumed, and
   Keras then holds tfd's weights, Adam's step and slots, and tfd's loss
   scale and count bit for bit, and goes on counting from them.
2. tf-keras trains the same model (fit, an overflowing batch, one more
   batch) and saves with the LossScaleOptimizer as "optimizer"; tfd
   restores it (loss_scale_checkpoint_interop restore) and holds Keras's
   weights, step, slots, loss scale and count bit for bit.

Run by tools/interop.sh from the repository root; exit status 0 on success.
"""
import os
import subprocess
import sys
import tempfile

os.environ.setdefault("TF_USE_LEGACY_KERAS", "1")
os.environ.setdefault("TF_CPP_MIN_LOG_LEVEL", "2")
import numpy as np  # noqa: E402
import tensorflow as tf  # noqa: E402
from interop_checks import FAILURES, check, check_restored_everything  # noqa: E402

BINARY = "bazel-bin/tests/interop/loss_scale_checkpoint_interop"
SCALE_KEY = "optimizer/loss_scale/current_loss_scale/.ATTRIBUTES/VARIABLE_VALUE"
GOOD_STEPS_KEY = "optimizer/loss_scale/good_steps/.ATTRIBUTES/VARIABLE_VALUE"
keras = tf.keras
L = keras.layers


def compiled_mixed():
    """The MLP made under mixed_float16 and compiled with Adam, which
    compile() wraps in a LossScaleOptimizer. Returns (model, adam)."""
    keras.backend.clear_session()
    keras.mixed_precision.set_global_policy("mixed_float16")
    model = keras.Sequential([
        L.Dense(16, activation="relu", input_shape=(8,), name="dense"),
        L.Dense(4, name="dense_1"),
    ], name="sequential")
    keras.mixed_precision.set_global_policy("float32")
    adam = keras.optimizers.Adam()
    model.compile(optimizer=adam,
                  loss=keras.losses.SparseCategoricalCrossentropy(from_logits=True))
    return model, adam


def batch(seed, n=16):
    rng = np.random.default_rng(seed)
    return rng.random((n, 8), dtype=np.float32), rng.integers(0, 4, n)


def listing(path):
    reader = tf.train.load_checkpoint(path)
    dtypes = reader.get_variable_to_dtype_map()
    return {k: (dtypes[k], s) for k, s in reader.get_variable_to_shape_map().items()}


def keras_reference_listing(directory):
    """(key -> (dtype, shape)) of tf-keras's checkpoint of the compiled
    model with the Adam it was compiled with, as tfd's C API saves."""
    model, adam = compiled_mixed()
    x, y = batch(1)
    model.fit(x, y, batch_size=16, epochs=1, verbose=0)
    return listing(tf.train.Checkpoint(model=model, optimizer=adam).save(
        os.path.join(directory, "ckpt")))


def read_dump(directory):
    """[(name, numpy array)] in the order the helper wrote them."""
    with open(os.path.join(directory, "values.bin"), "rb") as f:
        data = f.read()
    values = []
    with open(os.path.join(directory, "values.txt")) as f:
        for line in f:
            name, dtype, dims, offset, size = line.split(" ")
            shape = [int(d) for d in dims.split(",")] if dims else []
            raw = data[int(offset):int(offset) + int(size)]
            values.append((name, np.frombuffer(raw, dtype=np.dtype(dtype)).reshape(shape)))
    return values


def keras_state(model, adam):
    """The Keras objects in the helper's dump order: weights, Adam's
    variables, loss scale, good steps."""
    scaled = model.optimizer
    return (list(model.weights) + list(adam.variables) +
            [scaled.loss_scale, scaled.dynamic_counter])


def compare(keras_values, dump, what):
    """Each Keras value equals the dumped tfd value at its position."""
    check(len(keras_values) == len(dump),
          f"{what}: {len(keras_values)} Keras values for {len(dump)} of tfd's")
    for value, (name, want) in zip(keras_values, dump):
        got = np.asarray(value.numpy() if hasattr(value, "numpy") else value)
        if got.dtype != want.dtype or got.shape != want.shape or not np.array_equal(got, want):
            check(False, f"{what}: {name} {want.dtype}{list(want.shape)} equals "
                  f"Keras's {got.dtype}{list(got.shape)}")
            return
    check(True, f"{what}: {len(dump)} values (weights, Adam's step and slots, loss scale, "
          f"good steps) equal bit for bit")


def tfd_to_tensorflow(d):
    out = subprocess.run([BINARY, "write", d], capture_output=True, text=True)
    check(out.returncode == 0, "tfd writes its mixed_float16 checkpoint " + out.stderr.strip())
    if out.returncode != 0:
        return
    path = out.stdout.strip()
    os.makedirs(os.path.join(d, "keras"))
    reference = keras_reference_listing(os.path.join(d, "keras"))
    ours = listing(path)
    check(ours == reference, f"tfd's {len(ours)} keys, dtypes and shapes equal tf-keras's "
          f"({len(reference)})")
    for key in sorted(set(ours) ^ set(reference)):
        print("        only in", "tfd" if key in ours else "tf-keras", key)
    reader = tf.train.load_checkpoint(path)
    check(reader.get_tensor(SCALE_KEY) == np.float32(16384),
          "the saved loss scale is 2^14 (halved by the overflowing step)")
    check(reader.get_tensor(GOOD_STEPS_KEY) == 1, "the saved good-steps count is 1")

    model, adam = compiled_mixed()
    adam.build(model.trainable_variables)
    status = tf.train.Checkpoint(model=model, optimizer=adam).restore(path)
    check_restored_everything(status)
    check(int(adam.iterations.numpy()) == 4, "Keras optimizer.iterations == 4")
    compare(keras_state(model, adam), read_dump(d), "TensorFlow restores tfd's")
    x, y = batch(6)
    model.train_on_batch(x, y)
    check(float(model.optimizer.loss_scale.numpy()) == 16384.0 and
          int(model.optimizer.dynamic_counter.numpy()) == 2,
          "Keras's next step counts on from tfd's scale state (2^14, 2 good steps)")


def tensorflow_to_tfd(d):
    model, adam = compiled_mixed()
    x, y = batch(2, 32)
    model.fit(x, y, batch_size=16, epochs=1, verbose=0)
    model.train_on_batch(np.full((16, 8), 1e6, np.float32), y[:16])  # float16 overflow
    model.train_on_batch(x[:16], y[:16])
    scaled = model.optimizer
    check(float(scaled.loss_scale.numpy()) == 16384.0 and
          int(scaled.dynamic_counter.numpy()) == 1,
          "Keras skipped the overflowing step: scale 2^14, 1 good step")
    path = tf.train.Checkpoint(model=model, optimizer=scaled).save(os.path.join(d, "ckpt"))
    out = subprocess.run([BINARY, "restore", path, d], capture_output=True, text=True)
    check(out.returncode == 0, "tfd restores tf-keras's mixed_float16 checkpoint " +
          out.stderr.strip())
    if out.returncode != 0:
        return
    check(out.stdout.strip() == "iterations 4", "tfd's optimizer resumes at Keras's step 4")
    compare(keras_state(model, adam), read_dump(d), "tfd restores Keras's")


def main():
    with tempfile.TemporaryDirectory() as d:
        os.makedirs(os.path.join(d, "tfd"))
        os.makedirs(os.path.join(d, "keras"))
        tfd_to_tensorflow(os.path.join(d, "tfd"))
        tensorflow_to_tfd(os.path.join(d, "keras"))
    print("loss scale checkpoint interop:", "FAILED" if FAILURES else "PASSED")
    return 1 if FAILURES else 0


if __name__ == "__main__":
    sys.exit(main())
