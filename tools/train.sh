#!/usr/bin/env bash
# Trains the default model on Fashion-MNIST (Debian's dataset-fashion-mnist).
# Extra flags go to the trainer, e.g. tools/train.sh --epochs=5.
set -euo pipefail
cd "$(dirname "$0")/.."
tools/setup.sh
exec bazel run --noshow_progress //tools/demo:fashion_mnist_mlp -- "$@"
