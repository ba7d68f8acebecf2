"""Golden numbers for core/nn/model_fit_test.cc, from tf-keras 2.21.

Run with TF_USE_LEGACY_KERAS=1 and tensorflow-cpu 2.21 / tf-keras 2.21:
    TF_USE_LEGACY_KERAS=1 python core/nn/testdata/fit_golden.py
A tiny MLP with fixed weights, 10 samples in batches of 4 (4, 4, 2: a
partial last batch), SparseCategoricalCrossentropy(from_logits) and
"accuracy", trained 2 epochs with SGD(momentum) and with Adam, validated
on the same data; then one SGD epoch with class_weight and one with sample
weights, a binary sigmoid head, and fit on arrays with validation_split. Prints per-batch logs, epoch logs and final weights.
"""
import numpy as np
import tensorflow as tf
import tf_keras as keras


def data():
    x = np.array([[((i * 7 + j * 3) % 11) / 10.0 - 0.5 for j in range(4)] for i in range(10)],
                 dtype=np.float32)
    y = np.array([(i * 5 % 3) % 2 for i in range(10)], dtype=np.int32)
    return x, y


def model():
    m = keras.Sequential([keras.Input((4,)), keras.layers.Dense(3, activation="relu"),
                          keras.layers.Dense(2)])
    m.set_weights([
        np.linspace(-0.5, 0.5, 12, dtype=np.float32).reshape(4, 3),
        np.array([0.1, -0.1, 0.05], np.float32),
        np.linspace(-0.4, 0.6, 6, dtype=np.float32).reshape(3, 2),
        np.array([0.0, 0.1], np.float32),
    ])
    return m


class BatchLogs(keras.callbacks.Callback):
    def on_train_batch_end(self, batch, logs=None):
        print("batch", batch, {k: float(v) for k, v in logs.items()})


def run(name, optimizer):
    x, y = data()
    ds = tf.data.Dataset.from_tensor_slices((x, y)).batch(4)
    m = model()
    m.compile(optimizer=optimizer,
              loss=keras.losses.SparseCategoricalCrossentropy(from_logits=True),
              metrics=["accuracy"])
    h = m.fit(ds, epochs=2, validation_data=ds, verbose=0, callbacks=[BatchLogs()])
    print(name)
    for k, v in h.history.items():
        print(" ", k, ["%.9g" % t for t in v])
    for w in m.get_weights():
        print("  w", ", ".join("%.9g" % t for t in w.ravel()))
    print("  evaluate", m.evaluate(ds, verbose=0, return_dict=True))
    print("  predict", ", ".join("%.9g" % t for t in m.predict(ds, verbose=0).ravel()))


def run_weighted():
    """One SGD epoch with class_weight, then one with sample weights."""
    x, y = data()
    for name in ("class_weight", "sample_weight"):
        m = model()
        m.compile(optimizer=keras.optimizers.SGD(learning_rate=0.1),
                  loss=keras.losses.SparseCategoricalCrossentropy(from_logits=True),
                  metrics=["accuracy"])
        if name == "class_weight":
            ds = tf.data.Dataset.from_tensor_slices((x, y)).batch(4)
            h = m.fit(ds, epochs=1, verbose=0, class_weight={0: 0.5, 1: 2.0})
        else:
            sw = np.array([0.25 * (i % 4) for i in range(10)], np.float32)
            ds = tf.data.Dataset.from_tensor_slices((x, y, sw)).batch(4)
            h = m.fit(ds, epochs=1, verbose=0)
        print(name)
        for k, v in h.history.items():
            print(" ", k, ["%.9g" % t for t in v])
        for w in m.get_weights():
            print("  w", ", ".join("%.9g" % t for t in w.ravel()))


def run_binary():
    """A one-unit sigmoid head: "accuracy" is binary accuracy; [batch] labels."""
    x, y = data()
    m = keras.Sequential([keras.Input((4,)), keras.layers.Dense(3, activation="relu"),
                          keras.layers.Dense(1, activation="sigmoid")])
    m.set_weights([
        np.linspace(-0.5, 0.5, 12, dtype=np.float32).reshape(4, 3),
        np.array([0.1, -0.1, 0.05], np.float32),
        np.array([[0.3], [-0.2], [0.5]], np.float32),
        np.array([0.05], np.float32),
    ])
    m.compile(optimizer=keras.optimizers.SGD(learning_rate=0.5),
              loss=keras.losses.BinaryCrossentropy(), metrics=["accuracy"])
    ds = tf.data.Dataset.from_tensor_slices((x, y.astype(np.float32))).batch(4)
    h = m.fit(ds, epochs=2, verbose=0)
    print("binary")
    for k, v in h.history.items():
        print(" ", k, ["%.9g" % t for t in v])


def run_arrays():
    """fit(x, y) on arrays: batch_size 3, the last 20% held out, no shuffle."""
    x, y = data()
    m = model()
    m.compile(optimizer=keras.optimizers.SGD(learning_rate=0.1, momentum=0.9),
              loss=keras.losses.SparseCategoricalCrossentropy(from_logits=True),
              metrics=["accuracy"])
    h = m.fit(x, y, batch_size=3, epochs=2, validation_split=0.2, shuffle=False, verbose=0)
    print("arrays")
    for k, v in h.history.items():
        print(" ", k, ["%.9g" % t for t in v])


if __name__ == "__main__":
  run("sgd", keras.optimizers.SGD(learning_rate=0.1, momentum=0.9))
  run("adam", keras.optimizers.Adam(learning_rate=0.01))
  run_weighted()
  run_binary()
  run_arrays()
