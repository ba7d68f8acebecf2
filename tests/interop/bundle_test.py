#!/usr/bin/env python3
"""TensorBundle interop between tfd and the real TensorFlow.

1. tfd writes the sample bundle (bundle_interop write); TensorFlow lists it
   and reads every tensor, which must equal the values recomputed here.
2. TensorFlow writes the same tensors in the same order with SaveV2; its
   .index and .data files must equal tfd's byte for byte.
3. tfd reads TensorFlow's bundle (bundle_interop verify).
4. As 2, for 6000 tensors under long keys: an index of several blocks,
   which exercises TensorFlow's block-flush and index-separator rules.

Run by tools/interop.sh from the repository root (it needs TensorFlow from
the interop venv and bazel-bin/tests/interop/bundle_interop). Exit status
0 when every check passes.
"""
import os
import subprocess
import sys
import tempfile

import numpy as np
import tensorflow as tf

# Mirrors kOrder in bundle_interop.cc: (key, dtype, shape), in Add order.
ORDER = [
    ("zz/float32", tf.float32, [2, 3]), ("float64", tf.float64, [4]),
    ("int32", tf.int32, [2, 3]), ("uint8", tf.uint8, [5]),
    ("int16", tf.int16, [3]), ("int8", tf.int8, [2, 2]),
    ("int64/scalar", tf.int64, []), ("int64", tf.int64, [3]),
    ("bool", tf.bool, [5]), ("bfloat16", tf.bfloat16, [4]),
    ("uint16", tf.uint16, [3]), ("half", tf.float16, [2, 2]),
    ("uint32", tf.uint32, [3]), ("uint64", tf.uint64, [2]),
    ("empty/float32", tf.float32, [0, 4]), ("strings", tf.string, [4]),
    ("_CHECKPOINTABLE_OBJECT_GRAPH", tf.string, []),
]


def expected(key, dtype, shape):
    """The sample tensor, by the formulas of bundle_interop.cc."""
    n = int(np.prod(shape)) if shape else 1
    i = np.arange(n)
    if dtype == tf.string:
        if key == "_CHECKPOINTABLE_OBJECT_GRAPH":
            values = [b"graph-bytes"]
        else:
            values = [b"", b"abc", b"x" * 1000, b"\x00\xff"][:n]
        return tf.constant(np.array(values, dtype=object).reshape(shape), dtype=tf.string)
    if dtype.is_floating:
        v = 0.5 * i - 1.0
    elif dtype == tf.bool:
        v = i % 2
    elif dtype.is_unsigned:
        v = 3 * i + 1
    else:
        v = (i % 7) - 3
    return tf.cast(tf.constant(v.reshape(shape), dtype=tf.float64), dtype)


def same(a, b):
    a, b = tf.convert_to_tensor(a), tf.convert_to_tensor(b)
    if a.dtype != b.dtype or a.shape != b.shape:
        return False
    if a.dtype == tf.string:
        return np.array(a.numpy(), dtype=object).tolist() == np.array(b.numpy(), dtype=object).tolist()
    return bool(tf.reduce_all(tf.equal(a, b)))


def compare_files(tfd_prefix, tf_prefix):
    ok = True
    for suffix in (".index", ".data-00000-of-00001"):
        with open(tfd_prefix + suffix, "rb") as f:
            ours = f.read()
        with open(tf_prefix + suffix, "rb") as f:
            theirs = f.read()
        equal = ours == theirs
        print(f"bytes {suffix:22s} tfd {len(ours)} B, TF {len(theirs)} B: "
              f"{'identical' if equal else 'DIFFERENT'}")
        if not equal:
            n = min(len(ours), len(theirs))
            first = next((i for i in range(n) if ours[i] != theirs[i]), n)
            print(f"  first difference at byte {first}")
        ok &= equal
    return ok


def main():
    binary = sys.argv[1] if len(sys.argv) > 1 else "bazel-bin/tests/interop/bundle_interop"
    ok = True
    with tempfile.TemporaryDirectory() as d:
        tfd_prefix = os.path.join(d, "tfd", "ckpt")
        subprocess.run([binary, "write", tfd_prefix], check=True)

        # 1. TensorFlow reads tfd's bundle.
        reader = tf.train.load_checkpoint(tfd_prefix)
        shapes = reader.get_variable_to_shape_map()
        dtypes = reader.get_variable_to_dtype_map()
        listed = dict(tf.train.list_variables(tfd_prefix))
        for key, dtype, shape in ORDER:
            got = reader.get_tensor(key)
            good = (shapes.get(key) == shape and dtypes.get(key) == dtype and
                    listed.get(key) == shape and
                    same(tf.constant(got, dtype=dtype) if dtype != tf.string else got,
                         expected(key, dtype, shape)))
            print(f"TF reads tfd  {key:32s} {'ok' if good else 'MISMATCH'}")
            ok &= good
        if len(shapes) != len(ORDER):
            print(f"TF lists {len(shapes)} keys, expected {len(ORDER)}")
            ok = False

        # 2. TensorFlow writes the same tensors in the same order.
        tf_prefix = os.path.join(d, "tf", "ckpt")
        os.makedirs(os.path.dirname(tf_prefix))
        tf.raw_ops.SaveV2(prefix=tf_prefix,
                          tensor_names=[k for k, _, _ in ORDER],
                          shape_and_slices=[""] * len(ORDER),
                          tensors=[expected(*spec) for spec in ORDER])
        ok &= compare_files(tfd_prefix, tf_prefix)

        # 3. tfd reads TensorFlow's bundle.
        ok &= subprocess.run([binary, "verify", tf_prefix]).returncode == 0

        # 4. Several index blocks.
        n = 6000
        many_tfd = os.path.join(d, "many_tfd", "ckpt")
        many_tf = os.path.join(d, "many_tf", "ckpt")
        os.makedirs(os.path.dirname(many_tf))
        subprocess.run([binary, "write-many", many_tfd, str(n)], check=True)
        names = [f"model/layer_with_weights-{i}/kernel/.ATTRIBUTES/VARIABLE_VALUE"
                 for i in range(n)]
        tf.raw_ops.SaveV2(prefix=many_tf, tensor_names=names, shape_and_slices=[""] * n,
                          tensors=[tf.constant([float(i), -float(i)]) for i in range(n)])
        ok &= compare_files(many_tfd, many_tf)
    print("bundle interop:", "PASSED" if ok else "FAILED")
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
