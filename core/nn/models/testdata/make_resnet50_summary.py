"""Writes tf-keras 2.21's summary of keras.applications.ResNet50(weights=None)
that resnet50_test compares ResNet50()'s summary with. Run with the reference
venv (TensorFlow 2.21, tf-keras 2.21):

  python core/nn/models/testdata/make_resnet50_summary.py core/nn/models/testdata
"""
import os
import sys

os.environ.setdefault("TF_USE_LEGACY_KERAS", "1")
import tf_keras as keras  # noqa: E402


def main(out_dir):
    model = keras.applications.ResNet50(weights=None)
    lines = []
    model.summary(print_fn=lambda line, **kwargs: lines.append(line + "\n"))
    with open(os.path.join(out_dir, "resnet50_summary.txt"), "w") as f:
        f.writelines(lines)


if __name__ == "__main__":
    main(sys.argv[1])
