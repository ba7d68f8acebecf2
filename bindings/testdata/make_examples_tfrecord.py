"""Writes examples.tfrecord, the TFRecord file the binding tests read.

8 tf.train.Example records with "x": 4 floats and "y": an int64 label
(the index of the largest of x[0..2]), written by TensorFlow itself so that
the tests read the real format. Run with the TensorFlow venv:
    python3 bindings/testdata/make_examples_tfrecord.py
"""
import math
import os

import tensorflow as tf

path = os.path.join(os.path.dirname(os.path.abspath(__file__)), "examples.tfrecord")
with tf.io.TFRecordWriter(path) as writer:
    for i in range(8):
        x = [math.sin(1.7 * i + 0.9 * j + 0.3 * i * j) for j in range(4)]
        y = max(range(3), key=lambda k: x[k])
        example = tf.train.Example(features=tf.train.Features(feature={
            "x": tf.train.Feature(float_list=tf.train.FloatList(value=x)),
            "y": tf.train.Feature(int64_list=tf.train.Int64List(value=[y])),
        }))
        writer.write(example.SerializeToString())
