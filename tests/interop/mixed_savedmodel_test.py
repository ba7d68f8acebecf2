#!/usr/bin/env python3
"""SavedModels of mixed-precision models: tfd's export against tf-keras
2.21's (TF_USE_LEGACY_KERAS=1) for the same model, and TensorFlow running
tfd's.

For each policy (mixed_float16, mixed_bfloat16) and each head (none: the
last Dense computes in 16 bits, so Keras's output is 16-bit; float32: a
last Activation("linear", dtype="float32") as Keras's mixed precision guide
ends a model), tfd builds the MLP and exports it
(mixed_savedmodel_interop export); tf-keras builds the same architecture
and saves it with model.save. Then:

1. The serving_default signatures agree: the same input and output keys,
   dtypes (float32 inputs; the output in the model's output dtype) and
   shapes, and the method tensorflow/serving/predict.
2. The variables are stored as Keras stores them: float32 (a mixed
   policy's variable dtype), the casts to the compute dtype being in the
   graph, which holds Cast nodes from float32 to the 16-bit dtype.
3. tf.saved_model.load and the TF1 loader (Session) run tfd's signature on
   float32 inputs, and their outputs equal tfd's own predictions within
   the 16-bit tolerance (1e-2 relative).

Run by tools/interop.sh from the repository root; exit status 0 on success.
"""
import os
import shutil
import subprocess
import sys
import tempfile

os.environ.setdefault("TF_USE_LEGACY_KERAS", "1")
os.environ.setdefault("TF_CPP_MIN_LOG_LEVEL", "2")
import numpy as np  # noqa: E402
import tensorflow as tf  # noqa: E402
from tensorflow.core.protobuf import saved_model_pb2  # noqa: E402
from interop_checks import FAILURES, check  # noqa: E402

BINARY = "bazel-bin/tests/interop/mixed_savedmodel_interop"
N = 64
RTOL = 1e-2
keras = tf.keras
L = keras.layers
NUMPY = {"float32": np.float32, "float16": np.float16,
         "bfloat16": tf.bfloat16.as_numpy_dtype}


def keras_export(policy, head, export_dir):
    keras.backend.clear_session()
    keras.mixed_precision.set_global_policy(policy)
    layers = [L.Input((8,)), L.Dense(16, activation="relu"), L.Dense(4)]
    if head == "float32":
        layers.append(L.Activation("linear", dtype="float32", name="predictions"))
    model = keras.Sequential(layers)
    keras.mixed_precision.set_global_policy("float32")
    model.save(export_dir)


def meta_graph(export_dir):
    proto = saved_model_pb2.SavedModel()
    with open(os.path.join(export_dir, "saved_model.pb"), "rb") as f:
        proto.ParseFromString(f.read())
    return proto.meta_graphs[0]


def signature(export_dir):
    """{"inputs"/"outputs": {key: (dtype, dims)}, "method": name}."""
    sig = meta_graph(export_dir).signature_def["serving_default"]

    def side(tensors):
        return {k: (tf.dtypes.as_dtype(v.dtype).name, [d.size for d in v.tensor_shape.dim])
                for k, v in tensors.items()}
    return {"inputs": side(sig.inputs), "outputs": side(sig.outputs),
            "method": sig.method_name}


def casts(export_dir):
    """(SrcT, DstT) names of every Cast node, the graph's and its
    functions'."""
    graph = meta_graph(export_dir).graph_def
    nodes = list(graph.node)
    for f in graph.library.function:
        nodes.extend(f.node_def)
    return {(tf.dtypes.as_dtype(n.attr["SrcT"].type).name,
             tf.dtypes.as_dtype(n.attr["DstT"].type).name) for n in nodes if n.op == "Cast"}


def variable_dtypes(export_dir):
    reader = tf.train.load_checkpoint(os.path.join(export_dir, "variables", "variables"))
    return {k: v.name for k, v in reader.get_variable_to_dtype_map().items()
            if k != "_CHECKPOINTABLE_OBJECT_GRAPH"}


def check_close(name, got, want):
    got = np.asarray(got, np.float32)
    want = np.asarray(want, np.float32)
    ok = got.shape == want.shape and np.allclose(got, want, rtol=RTOL, atol=RTOL)
    diff = float(np.max(np.abs(got - want))) if got.shape == want.shape else float("nan")
    check(ok, f"{name}: max |diff| {diff:.3g} over {got.size} values (rtol {RTOL})")


def one_case(work, policy, head, inputs, inputs_file):
    case = f"{policy}/{head}"
    compute = "float16" if policy == "mixed_float16" else "bfloat16"
    tfd_dir = os.path.join(work, f"tfd_{policy}_{head}")
    keras_dir = os.path.join(work, f"keras_{policy}_{head}")
    preds_file = os.path.join(work, f"tfd_{policy}_{head}.raw")
    result = subprocess.run([BINARY, "export", policy, head, tfd_dir, inputs_file, str(N),
                             preds_file], capture_output=True, text=True)
    if result.returncode != 0:
        check(False, f"{case}: mixed_savedmodel_interop export: {result.stderr.strip()}")
        return
    out_dtype = result.stdout.strip()
    want = np.fromfile(preds_file, NUMPY[out_dtype]).reshape(N, 4)
    # Outputs that all matched as zeros would prove nothing.
    check(np.count_nonzero(want.astype(np.float32)) > N,
          f"{case}: tfd's predictions are not all zero")
    keras_export(policy, head, keras_dir)

    tfd_sig, keras_sig = signature(tfd_dir), signature(keras_dir)
    check(tfd_sig == keras_sig, f"{case}: tfd's signature {tfd_sig} is Keras's {keras_sig}")
    expected_out = "float32" if head == "float32" else compute
    check(tfd_sig["inputs"].get("input_1", ("",))[0] == "float32"
          and all(d == expected_out for d, _ in tfd_sig["outputs"].values()),
          f"{case}: float32 input, {expected_out} output")
    tfd_vars, keras_vars = variable_dtypes(tfd_dir), variable_dtypes(keras_dir)
    check(sorted(tfd_vars.values()) == sorted(keras_vars.values())
          and set(tfd_vars.values()) == {"float32"},
          f"{case}: variables float32 as Keras's ({sorted(tfd_vars.items())})")
    check(("float32", compute) in casts(tfd_dir) and ("float32", compute) in casts(keras_dir),
          f"{case}: both graphs cast float32 to {compute}")
    if head == "float32":
        check((compute, "float32") in casts(tfd_dir),
              f"{case}: tfd's graph casts {compute} back to float32 for the head")

    serving = tf.saved_model.load(tfd_dir).signatures["serving_default"]
    (key,) = serving.structured_input_signature[1].keys()
    (got,) = [t.numpy() for t in serving(**{key: tf.constant(inputs)}).values()]
    check(got.dtype == NUMPY[out_dtype], f"{case}: TensorFlow's output dtype {got.dtype}")
    check_close(f"{case}: tf.saved_model.load on tfd's SavedModel vs tfd", got, want)

    with tf.Graph().as_default(), tf.compat.v1.Session() as sess:
        meta = tf.compat.v1.saved_model.load(sess, ["serve"], tfd_dir)
        sig = meta.signature_def["serving_default"]
        (inp,) = sig.inputs.values()
        (out,) = sig.outputs.values()
        got_v1 = sess.run(out.name, feed_dict={inp.name: inputs})
    check_close(f"{case}: TF1 loader (Session) on tfd's SavedModel vs tfd", got_v1, want)
    shutil.rmtree(keras_dir, ignore_errors=True)


def main():
    if not os.path.exists(BINARY):
        sys.exit(f"{BINARY} not found: bazel build //tests/interop:all first")
    # Values of both signs and a few magnitudes, so relu passes some.
    inputs = np.random.default_rng(5).normal(0.0, 2.0, (N, 8)).astype(np.float32)
    with tempfile.TemporaryDirectory() as work:
        inputs_file = os.path.join(work, "inputs.f32")
        inputs.tofile(inputs_file)
        for policy in ["mixed_float16", "mixed_bfloat16"]:
            for head in ["none", "float32"]:
                one_case(work, policy, head, inputs, inputs_file)
    if FAILURES:
        sys.exit(f"FAIL: {len(FAILURES)} check(s)")
    print("PASS")


if __name__ == "__main__":
    main()
