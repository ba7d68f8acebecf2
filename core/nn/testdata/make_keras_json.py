"""Writes the tf-keras 2.21 model JSON and summaries that model_from_json_test
reads. Run with the reference venv (TensorFlow 2.21, tf-keras 2.21):

  TF_USE_LEGACY_KERAS=1 python core/nn/testdata/make_keras_json.py core/nn/testdata
"""
import os
import sys

os.environ.setdefault("TF_USE_LEGACY_KERAS", "1")
import tf_keras as keras  # noqa: E402

L = keras.layers


def save(model, out_dir, stem):
    with open(os.path.join(out_dir, stem + ".json"), "w") as f:
        f.write(model.to_json())
    lines = []
    model.summary(print_fn=lambda line, **kwargs: lines.append(line + "\n"))
    with open(os.path.join(out_dir, stem + "_summary.txt"), "w") as f:
        f.writelines(lines)


def main(out_dir):
    # The order matters: Keras numbers unnamed layers per process.
    mlp = keras.Sequential([L.Flatten(input_shape=(28, 28)),
                            L.Dense(128, activation="relu"),
                            L.Dense(10)])
    save(mlp, out_dir, "fashion_mnist_mlp")
    cnn = keras.Sequential([keras.Input(shape=(28, 28, 1)),
                            L.Conv2D(32, 3, activation="relu"), L.MaxPooling2D(),
                            L.Conv2D(64, 3, activation="relu"), L.MaxPooling2D(),
                            L.Flatten(), L.Dropout(0.5),
                            L.Dense(64, activation="relu"), L.Dense(10)])
    save(cnn, out_dir, "fashion_mnist_cnn")
    image = keras.Input(shape=(8, 8, 3), name="image")
    conv = L.Conv2D(4, 3, padding="same", name="conv")(image)
    x = L.Activation("relu")(conv)
    x = L.Add()([x, conv])
    x = L.BatchNormalization()(x)
    x = L.GlobalAveragePooling2D()(x)
    x = L.Dense(3, activation="softmax", kernel_initializer="he_normal")(x)
    save(keras.Model(image, x), out_dir, "residual_functional")
    image = keras.Input(shape=(6, 5, 2), name="image")
    x = L.ZeroPadding2D(((1, 2), (0, 3)))(image)
    x = L.ZeroPadding2D(1)(x)
    x = L.Conv2D(3, 3, strides=2, name="conv")(x)
    x = L.GlobalAveragePooling2D()(x)
    save(keras.Model(image, x), out_dir, "zero_padding_functional")


if __name__ == "__main__":
    main(sys.argv[1])
