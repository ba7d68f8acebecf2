#!/usr/bin/env python3
"""SavedModel interop between tfd and the real TensorFlow, both ways.

1. tfd exports the Fashion-MNIST CNN (savedmodel_interop export) and writes
   its predictions for 100 test images; tf.saved_model.load runs the
   "serving_default" signature on the same images and must match within
   1e-5; `saved_model_cli show --all` must list the signature, its input
   and output; the TF1 loader (tf.compat.v1.saved_model.load in a Session)
   must restore the variables and give the same numbers.
2. tf-keras (Keras 2, TF_USE_LEGACY_KERAS=1) builds the same architecture
   and saves it with model.save; tfd loads it (savedmodel_interop run),
   which inlines TF2's function calls, restores the variables through the
   saved restore function and runs the signature; its predictions must
   match Keras's within 1e-5.
3. A TF1 graph (placeholder, resource variables, softmax) saved with
   tf.compat.v1.saved_model.simple_save loads in tfd (sharded saver,
   RestoreV2 through save/restore_all) and matches TensorFlow within 1e-5.

Run from the repository root after `bazel build //tests/interop:all`:

  ~/.cache/tfd-venv/bin/python tests/interop/savedmodel_interop_test.py

Exit status 0 when every check passes.
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
import tf_keras as keras  # noqa: E402

BINARY = "bazel-bin/tests/interop/savedmodel_interop"
IMAGES = "/usr/share/datasets/fashion-mnist/t10k-images-idx3-ubyte.gz"
N = 100
TOLERANCE = 1e-5


def test_images():
    with gzip.open(IMAGES) as f:
        raw = np.frombuffer(f.read(), np.uint8, offset=16)
    return (raw.reshape(-1, 28, 28, 1)[:N].astype(np.float32) / 255.0).copy()


def run_tfd(*args):
    result = subprocess.run([BINARY, *args], capture_output=True, text=True)
    if result.returncode != 0:
        sys.exit(f"savedmodel_interop {args[0]} failed:\n{result.stderr}")


def check_close(name, got, want):
    diff = float(np.max(np.abs(got - want)))
    print(f"{name}: max |diff| = {diff:.3g} over {got.size} values")
    if got.shape != want.shape or not diff <= TOLERANCE:
        sys.exit(f"FAIL {name}: shapes {got.shape} vs {want.shape}, max diff {diff}")


def tfd_to_tensorflow(work, images, images_file):
    export_dir = os.path.join(work, "tfd_cnn")
    preds_file = os.path.join(work, "tfd_predictions.f32")
    run_tfd("export", export_dir, images_file, str(N), preds_file)
    want = np.fromfile(preds_file, np.float32).reshape(N, 10)

    loaded = tf.saved_model.load(export_dir)
    serving = loaded.signatures["serving_default"]
    (key,) = serving.structured_input_signature[1].keys()
    outputs = serving(**{key: tf.constant(images)})
    (got,) = [t.numpy() for t in outputs.values()]
    check_close("tf.saved_model.load on tfd's SavedModel", got, want)

    with tf.Graph().as_default(), tf.compat.v1.Session() as sess:
        meta = tf.compat.v1.saved_model.load(sess, ["serve"], export_dir)
        sig = meta.signature_def["serving_default"]
        (inp,) = sig.inputs.values()
        (out,) = sig.outputs.values()
        got_v1 = sess.run(out.name, feed_dict={inp.name: images})
    check_close("TF1 loader (Session) on tfd's SavedModel", got_v1, want)

    cli = os.path.join(os.path.dirname(sys.executable), "saved_model_cli")
    shown = subprocess.run([cli, "show", "--dir", export_dir, "--all"],
                           capture_output=True, text=True)
    text = shown.stdout
    for needle in ["signature_def['serving_default']", "inputs['input_1']",
                   "shape: (-1, 28, 28, 1)", "outputs['dense_1']", "shape: (-1, 10)",
                   "Method name is: tensorflow/serving/predict"]:
        if needle not in text:
            sys.exit(f"FAIL saved_model_cli show --all lacks {needle!r}:\n{text}\n{shown.stderr}")
    print("saved_model_cli show --all lists the serving signature")


def tensorflow_to_tfd(work, images, images_file):
    keras.utils.set_random_seed(3)
    model = keras.Sequential([
        keras.layers.Input((28, 28, 1)),
        keras.layers.Conv2D(32, 3, activation="relu"),
        keras.layers.MaxPooling2D(),
        keras.layers.Conv2D(64, 3, activation="relu"),
        keras.layers.MaxPooling2D(),
        keras.layers.Flatten(),
        keras.layers.Dense(64, activation="relu"),
        keras.layers.Dense(10),
    ])
    export_dir = os.path.join(work, "keras_cnn")
    model.save(export_dir)
    want = model.predict(images, verbose=0)
    preds_file = os.path.join(work, "tfd_on_keras.f32")
    run_tfd("run", export_dir, images_file, str(N), preds_file)
    got = np.fromfile(preds_file, np.float32).reshape(N, 10)
    check_close("tfd's loader on Keras's SavedModel", got, want)


def tf1_graph_to_tfd(work, images, images_file):
    export_dir = os.path.join(work, "tf1_model")
    with tf.Graph().as_default():
        x = tf.compat.v1.placeholder(tf.float32, [None, 28, 28, 1], name="images")
        flat = tf.reshape(x, [-1, 784])
        w = tf.compat.v1.get_variable(
            "w", [784, 10], initializer=tf.compat.v1.glorot_uniform_initializer(seed=1))
        b = tf.compat.v1.get_variable(
            "b", [10], initializer=tf.compat.v1.constant_initializer(0.1))
        y = tf.nn.softmax(tf.matmul(flat, w) + b, name="probs")
        with tf.compat.v1.Session() as sess:
            sess.run(tf.compat.v1.global_variables_initializer())
            want = sess.run(y, {x: images})
            tf.compat.v1.saved_model.simple_save(sess, export_dir, {"images": x}, {"probs": y})
    preds_file = os.path.join(work, "tfd_on_tf1.f32")
    run_tfd("run", export_dir, images_file, str(N), preds_file)
    got = np.fromfile(preds_file, np.float32).reshape(N, 10)
    check_close("tfd's loader on a TF1 SavedModel", got, want)


def main():
    if not os.path.exists(BINARY):
        sys.exit(f"{BINARY} not found: bazel build //tests/interop:all first")
    images = test_images()
    with tempfile.TemporaryDirectory() as work:
        images_file = os.path.join(work, "images.f32")
        images.tofile(images_file)
        tfd_to_tensorflow(work, images, images_file)
        tensorflow_to_tfd(work, images, images_file)
        tf1_graph_to_tfd(work, images, images_file)
    print("PASS")


if __name__ == "__main__":
    main()
