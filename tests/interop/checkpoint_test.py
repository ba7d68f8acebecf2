#!/usr/bin/env python3
"""Checkpoint interop between tfd and tf-keras 2.21 (TF_USE_LEGACY_KERAS=1).

1. tfd trains the Fashion-MNIST CNN 2 steps with Adam and saves a
   checkpoint (checkpoint_interop write). TensorFlow's load_checkpoint and
   list_variables read every key with the dtype and shape that tf-keras
   writes for the same model and optimizer, and the exact values tfd's
   variables held; tf.train.Checkpoint(model=, optimizer=).restore() into
   a Keras model passes assert_existing_objects_matched (and
   assert_consumed), restores the step counter, and Keras's predictions
   equal tfd's within 1e-5.
2. tf-keras trains the same architecture (in a custom loop, and with
   compile/fit) and saves a checkpoint; tfd restores it (checkpoint_interop
   predict), resumes at Keras's step, and its predictions on Fashion-MNIST
   test images match Keras's within 1e-5.

Run by tools/interop.sh from the repository root; exit status 0 on success.
"""
import gzip
import os
import subprocess
import sys
import tempfile

os.environ.setdefault("TF_USE_LEGACY_KERAS", "1")
os.environ.setdefault("TF_CPP_MIN_LOG_LEVEL", "2")
import numpy as np  # noqa: E402
import tensorflow as tf  # noqa: E402
from tensorflow.core.protobuf import trackable_object_graph_pb2  # noqa: E402
from interop_checks import FAILURES, check, check_restored_everything  # noqa: E402

BINARY = "bazel-bin/tests/interop/checkpoint_interop"
FASHION_MNIST = "/usr/share/datasets/fashion-mnist/t10k-images-idx3-ubyte.gz"
keras = tf.keras
L = keras.layers


def cnn():
    return keras.Sequential([
        L.Conv2D(32, 3, activation="relu", input_shape=(28, 28, 1)),
        L.MaxPooling2D(),
        L.Conv2D(64, 3, activation="relu"),
        L.MaxPooling2D(),
        L.Flatten(),
        L.Dense(64, activation="relu"),
        L.Dense(10),
    ])


def train(model, optimizer, steps, seed):
    rng = np.random.default_rng(seed)
    x = rng.random((16, 28, 28, 1), dtype=np.float32)
    y = rng.integers(0, 10, 16)
    loss = keras.losses.SparseCategoricalCrossentropy(from_logits=True)
    for _ in range(steps):
        with tf.GradientTape() as tape:
            value = loss(y, model(x, training=True))
        grads = tape.gradient(value, model.trainable_variables)
        optimizer.apply_gradients(zip(grads, model.trainable_variables))


def keras_reference_listing(directory):
    """(key -> (dtype, shape)) of the checkpoint tf-keras writes for the CNN."""
    keras.backend.clear_session()
    model, optimizer = cnn(), keras.optimizers.Adam()
    train(model, optimizer, 1, seed=1)
    path = tf.train.Checkpoint(model=model, optimizer=optimizer).save(
        os.path.join(directory, "ckpt"))
    reader = tf.train.load_checkpoint(path)
    dtypes = reader.get_variable_to_dtype_map()
    return {k: (dtypes[k], s) for k, s in reader.get_variable_to_shape_map().items()}


def read_dump(directory):
    """name -> numpy array, as tfd's live variables held them."""
    with open(os.path.join(directory, "values.bin"), "rb") as f:
        data = f.read()
    values = {}
    with open(os.path.join(directory, "values.txt")) as f:
        for line in f:
            name, dtype, dims, offset, size = line.split(" ")
            shape = [int(d) for d in dims.split(",")] if dims else []
            raw = data[int(offset):int(offset) + int(size)]
            values[name] = np.frombuffer(raw, dtype=np.dtype(dtype)).reshape(shape)
    return values


def tfd_to_tensorflow(d):
    keras.backend.clear_session()
    out = subprocess.run([BINARY, "write", d], check=True, capture_output=True, text=True)
    path = out.stdout.strip()
    reference = keras_reference_listing(os.path.join(d, "keras"))
    reader = tf.train.load_checkpoint(path)
    dtypes = reader.get_variable_to_dtype_map()
    shapes = reader.get_variable_to_shape_map()
    listed = dict(tf.train.list_variables(path))
    ours = {k: (dtypes[k], s) for k, s in shapes.items()}
    check(ours == reference, f"tfd's {len(ours)} keys, dtypes and shapes equal tf-keras's "
          f"({len(reference)})")
    for key in sorted(set(ours) ^ set(reference)):
        print("        only in", "tfd" if key in ours else "tf-keras", key)
    check(listed == shapes, "list_variables agrees with the reader")

    graph = trackable_object_graph_pb2.TrackableObjectGraph()
    graph.ParseFromString(reader.get_tensor("_CHECKPOINTABLE_OBJECT_GRAPH"))
    dump = read_dump(d)
    compared = 0
    for node in graph.nodes:
        for attribute in node.attributes:
            name = attribute.full_name
            if name == "save_counter":
                check(reader.get_tensor(attribute.checkpoint_key) == 1, "save_counter is 1")
                continue
            if name == "learning_rate":
                check(reader.get_tensor(attribute.checkpoint_key) == np.float32(0.001),
                      "learning rate 0.001")
                continue
            got = reader.get_tensor(attribute.checkpoint_key)
            want = dump[name]
            if got.dtype != want.dtype or got.shape != want.shape or \
                    not np.array_equal(got, want):
                check(False, f"{attribute.checkpoint_key} ({name}) equals tfd's value")
            compared += 1
    check(compared == len(dump), f"{compared} values read by TensorFlow equal tfd's "
          f"variables bit for bit ({len(dump)} dumped)")

    # Restore into Keras objects of the same architecture.
    keras.backend.clear_session()
    model, optimizer = cnn(), keras.optimizers.Adam()
    optimizer.build(model.trainable_variables)
    status = tf.train.Checkpoint(model=model, optimizer=optimizer).restore(path)
    check_restored_everything(status)
    check(int(optimizer.iterations.numpy()) == 2, "Keras optimizer.iterations == 2")
    same = all(np.array_equal(w.numpy(), dump[w.name.split(":")[0]]) for w in model.weights)
    check(same, "Keras model weights equal tfd's")
    x = np.fromfile(os.path.join(d, "input.bin"), dtype=np.float32).reshape(4, 28, 28, 1)
    tfd_logits = np.fromfile(os.path.join(d, "logits.bin"), dtype=np.float32).reshape(4, 10)
    diff = np.max(np.abs(model(x, training=False).numpy() - tfd_logits))
    check(diff <= 1e-5, f"Keras predicts tfd's logits after restoring (max diff {diff:.2e})")


def test_images(n):
    if os.path.exists(FASHION_MNIST):
        with gzip.open(FASHION_MNIST, "rb") as f:
            pixels = np.frombuffer(f.read(), dtype=np.uint8, offset=16)
        return (pixels[:n * 784].reshape(n, 28, 28, 1) / 255.0).astype(np.float32)
    print("note    Fashion-MNIST not installed; random images")
    return np.random.default_rng(3).random((n, 28, 28, 1), dtype=np.float32)


def tensorflow_to_tfd(d, fit):
    """fit: train with compile/fit, whose checkpoint graph also has the
    model's optimizer edge and its traced functions; else a custom loop."""
    keras.backend.clear_session()
    tf.random.set_seed(7)
    model, optimizer = cnn(), keras.optimizers.Adam()
    if fit:
        rng = np.random.default_rng(4)
        model.compile(optimizer=optimizer,
                      loss=keras.losses.SparseCategoricalCrossentropy(from_logits=True))
        model.fit(rng.random((48, 28, 28, 1), dtype=np.float32), rng.integers(0, 10, 48),
                  batch_size=16, epochs=1, verbose=0)
    else:
        train(model, optimizer, 3, seed=2)
    path = tf.train.Checkpoint(model=model, optimizer=optimizer).save(os.path.join(d, "ckpt"))
    how = "compile/fit" if fit else "a custom loop"
    x = test_images(100)
    x.tofile(os.path.join(d, "input.bin"))
    out = subprocess.run([BINARY, "predict", path, os.path.join(d, "input.bin"), "100",
                          os.path.join(d, "logits.bin")], capture_output=True, text=True)
    check(out.returncode == 0,
          f"tfd restores tf-keras's checkpoint after {how} " + out.stderr.strip())
    if out.returncode != 0:
        return
    check(out.stdout.strip() == "iterations 3", f"tfd's optimizer resumes at step 3 ({how})")
    ours = np.fromfile(os.path.join(d, "logits.bin"), dtype=np.float32).reshape(100, 10)
    diff = np.max(np.abs(model(x, training=False).numpy() - ours))
    check(diff <= 1e-5,
          f"tfd's predictions on 100 images match Keras's ({how}, max diff {diff:.2e})")


def main():
    with tempfile.TemporaryDirectory() as d:
        os.makedirs(os.path.join(d, "tfd"))
        os.makedirs(os.path.join(d, "keras"))
        os.makedirs(os.path.join(d, "keras_fit"))
        tfd_to_tensorflow(os.path.join(d, "tfd"))
        tensorflow_to_tfd(os.path.join(d, "keras"), fit=False)
        tensorflow_to_tfd(os.path.join(d, "keras_fit"), fit=True)
    print("checkpoint interop:", "FAILED" if FAILURES else "PASSED")
    return 1 if FAILURES else 0


if __name__ == "__main__":
    sys.exit(main())
