#!/usr/bin/env python3
"""Writes the object graphs that tf.train.Checkpoint(model=, optimizer=)
saves with tf-keras 2.21 (TF_USE_LEGACY_KERAS=1), as text protos, for
keras_object_graph_test.cc to compare tfd's graphs with.

Each model is trained one step in a custom loop (GradientTape and
apply_gradients, no compile), so the optimizer is built and the model has
no training functions attached. Layer names are set explicitly so that
they do not depend on Keras's per-process name counters. The mixed_float16
case builds its model under that global policy and trains through a
LossScaleOptimizer around Adam (what compile() would wrap it in).

  TF_USE_LEGACY_KERAS=1 ~/.cache/tfd-venv/bin/python \
      savedmodel/checkpoint/testdata/make_keras_object_graphs.py [CASE...]
"""
import sys
import os
import tempfile

os.environ.setdefault("TF_USE_LEGACY_KERAS", "1")
import numpy as np  # noqa: E402
import tf_keras  # noqa: E402
import tensorflow as tf  # noqa: E402
from tensorflow.core.protobuf import trackable_object_graph_pb2  # noqa: E402

keras = tf.keras
L = keras.layers
OUT = os.path.dirname(os.path.abspath(__file__))


def cnn():
    return keras.Sequential([
        L.Conv2D(32, 3, activation="relu", input_shape=(28, 28, 1), name="conv2d"),
        L.MaxPooling2D(name="max_pooling2d"),
        L.Conv2D(64, 3, activation="relu", name="conv2d_1"),
        L.MaxPooling2D(name="max_pooling2d_1"),
        L.Flatten(name="flatten"),
        L.Dense(64, activation="relu", name="dense"),
        L.Dense(10, name="dense_1"),
    ], name="sequential"), (2, 28, 28, 1)


def functional_bn():
    x = keras.Input((8,), name="input_1")
    h = L.Dense(16, name="dense")(x)
    h = L.BatchNormalization(name="batch_normalization")(h)
    h = L.Activation("relu", name="activation")(h)
    y = L.Dense(4, name="dense_1")(h)
    return keras.Model(x, y, name="model"), (4, 8)


def nested_sequential():
    inner = keras.Sequential([
        L.Dense(8, activation="relu", input_shape=(4,), name="dense"),
        L.Dense(8, name="dense_1"),
    ], name="sequential")
    x = keras.Input((4,), name="input_1")
    y = L.Dense(4, name="dense_2")(inner(x))
    return keras.Model(x, y, name="model"), (4, 4)


def mlp():
    return keras.Sequential([
        L.Dense(16, activation="relu", input_shape=(8,), name="dense"),
        L.Dense(4, name="dense_1"),
    ], name="sequential"), (4, 8)


CASES = {
    "cnn_adam": (cnn, lambda: keras.optimizers.Adam()),
    "functional_bn_adam": (functional_bn, lambda: keras.optimizers.Adam()),
    "nested_sequential_sgd": (nested_sequential, lambda: keras.optimizers.SGD(0.1)),
    "mlp_sgd_momentum": (mlp, lambda: keras.optimizers.SGD(0.1, momentum=0.9)),
    "mlp_rmsprop_centered": (mlp, lambda: keras.optimizers.RMSprop(momentum=0.5, centered=True)),
    "mlp_adagrad": (mlp, lambda: keras.optimizers.Adagrad()),
    "mlp_adamw_amsgrad": (mlp, lambda: keras.optimizers.AdamW(amsgrad=True)),
    "mlp_sgd_schedule": (mlp, lambda: keras.optimizers.SGD(
        keras.optimizers.schedules.ExponentialDecay(0.1, 10, 0.9))),
    "mlp_mixed_float16_adam": (mlp, lambda: keras.mixed_precision.LossScaleOptimizer(
        keras.optimizers.Adam())),
}
# Cases whose model is built under a global dtype policy other than float32.
POLICIES = {"mlp_mixed_float16_adam": "mixed_float16"}


def object_graph(make_model, make_optimizer, directory, policy):
    keras.backend.clear_session()
    keras.mixed_precision.set_global_policy(policy)
    model, input_shape = make_model()
    keras.mixed_precision.set_global_policy("float32")
    optimizer = make_optimizer()
    rng = np.random.default_rng(0)
    x = rng.random(input_shape, dtype=np.float32)
    y = rng.integers(0, 4, input_shape[0])
    loss = keras.losses.SparseCategoricalCrossentropy(from_logits=True)
    with tf.GradientTape() as tape:
        value = loss(y, model(x, training=True))
    grads = tape.gradient(value, model.trainable_variables)
    optimizer.apply_gradients(zip(grads, model.trainable_variables))
    path = tf.train.Checkpoint(model=model, optimizer=optimizer).save(
        os.path.join(directory, "ckpt"))
    graph = trackable_object_graph_pb2.TrackableObjectGraph()
    graph.ParseFromString(
        tf.train.load_checkpoint(path).get_tensor("_CHECKPOINTABLE_OBJECT_GRAPH"))
    return graph


def main():
    for name in sys.argv[1:] or CASES:
        make_model, make_optimizer = CASES[name]
        with tempfile.TemporaryDirectory() as d:
            graph = object_graph(make_model, make_optimizer, d, POLICIES.get(name, "float32"))
        with open(os.path.join(OUT, name + ".pbtxt"), "w") as f:
            f.write(f"# tf.train.Checkpoint(model=, optimizer=) object graph, tf-keras "
                    f"{tf_keras.__version__}, case {name}\n")
            f.write(str(graph))
        print("wrote", name)


if __name__ == "__main__":
    main()
