#!/usr/bin/env python3
"""Writes testdata/keras_dense: a small SavedModel saved by tf-keras 2.21
(TF2 format: function library, object graph, traced restore function) and
the golden outputs saved_model_session_test compares tfd's loader with.

  ~/.cache/tfd-venv/bin/python savedmodel/loader/testdata/make_keras_dense.py

Model: Input(4) -> Dense(3, relu) -> Dense(2), weights from seed 11.
Golden: keras_dense_golden.txt, one line per example of INPUTS, the two
outputs printed with 9 significant digits.
"""
import os
import shutil

os.environ["TF_USE_LEGACY_KERAS"] = "1"
os.environ.setdefault("TF_CPP_MIN_LOG_LEVEL", "2")

import numpy as np  # noqa: E402
import tf_keras as keras  # noqa: E402

HERE = os.path.dirname(os.path.abspath(__file__))
INPUTS = np.array([[0.5, -1.0, 2.0, 0.25], [-0.75, 0.1, 0.0, 3.0]], np.float32)

keras.utils.set_random_seed(11)
model = keras.Sequential([
    keras.layers.Input((4,)),
    keras.layers.Dense(3, activation="relu"),
    keras.layers.Dense(2),
])
out_dir = os.path.join(HERE, "keras_dense")
shutil.rmtree(out_dir, ignore_errors=True)
model.save(out_dir)
with open(os.path.join(HERE, "keras_dense_golden.txt"), "w") as f:
    for row in model.predict(INPUTS, verbose=0):
        f.write(" ".join(f"{v:.9g}" for v in row) + "\n")
