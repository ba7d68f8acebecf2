"""Golden numbers of core/nn/mixed_precision_test.cc, from tf-keras 2.21.

Run with TF_USE_LEGACY_KERAS=1 and tensorflow-cpu 2.21 / tf-keras 2.21:
  TF_USE_LEGACY_KERAS=1 python core/nn/testdata/mixed_precision_golden.py
and paste the printed arrays into the test.
"""
import math

import numpy as np
import tensorflow as tf

keras = tf.keras
mp = keras.mixed_precision


def overflow_sequence():
    """Loss-scale sequence of a float16 Dense whose gradient overflows."""
    mp.set_global_policy("mixed_float16")
    dense = keras.layers.Dense(1, use_bias=False, kernel_initializer="ones")
    opt = mp.LossScaleOptimizer(keras.optimizers.SGD(0.001), dynamic_growth_steps=2)
    x = tf.constant([[300.0, 300.0, 300.0, 300.0]])
    for step in range(12):
        with tf.GradientTape() as tape:
            loss = tf.reduce_sum(tf.cast(dense(x), tf.float32))
            scaled = opt.get_scaled_loss(loss)
        grads = opt.get_unscaled_gradients(tape.gradient(scaled, dense.trainable_variables))
        opt.apply_gradients(zip(grads, dense.trainable_variables))
        print(step, float(opt.loss_scale), int(opt.dynamic_counter), int(opt.iterations.numpy()),
              float(dense.kernel.numpy()[0, 0]))
    mp.set_global_policy("float32")


def weights(n, m, offset):
    return np.array([[0.5 * math.sin(offset + i * m + j + 1) for j in range(m)] for i in range(n)],
                    dtype=np.float32)


def training(policy):
    """Losses of a small classifier trained 10 steps with SGD."""
    mp.set_global_policy(policy)
    inputs = keras.Input((4,))
    h = keras.layers.Dense(8, activation="relu")(inputs)
    logits = keras.layers.Dense(3)(h)
    probs = keras.layers.Activation("softmax", dtype="float32")(logits)
    model = keras.Model(inputs, probs)
    model.layers[1].set_weights([weights(4, 8, 0.0), np.array([0.1 * math.cos(j) for j in range(8)], np.float32)])
    model.layers[2].set_weights([weights(8, 3, 7.0), np.zeros(3, np.float32)])
    x = np.array([[math.cos(0.37 * (4 * r + c)) for c in range(4)] for r in range(16)], np.float32)
    y = np.array([r % 3 for r in range(16)], np.int32)
    opt = keras.optimizers.SGD(0.5)
    loss_fn = keras.losses.SparseCategoricalCrossentropy()
    losses = []
    for _ in range(10):
        with tf.GradientTape() as tape:
            loss = loss_fn(y, model(x, training=True))
        grads = tape.gradient(loss, model.trainable_variables)
        opt.apply_gradients(zip(grads, model.trainable_variables))
        losses.append(float(loss))
    mp.set_global_policy("float32")
    print(policy, [f"{v:.9g}" for v in losses])


if __name__ == "__main__":
    print(mp.Policy("mixed_float16").compute_dtype, mp.Policy("mixed_float16").variable_dtype)
    print(mp.Policy("mixed_bfloat16").compute_dtype, mp.Policy("mixed_bfloat16").variable_dtype)
    overflow_sequence()
    training("float32")
    training("mixed_bfloat16")
    training("mixed_float16")
