#!/usr/bin/env bash
# Runs the core suite on the CPU as it would run on a GPU machine with
# TFD_DEFAULT_DEVICE=/device:GPU:0 (docs/GPU.md, "The core suite on a fake
# GPU"): under --config=fake_gpu_suite every core test links a fake GPU
# (host memory) that has the CUDA build's (op, dtype) kernels and is the
# default device, and host reads of its tensors abort naming the device.
# The tests are those of tools/core_suite_tests.sh, as on the GPU machine.
#
#   tools/fake_gpu_suite.sh                    # the whole core suite
#   tools/fake_gpu_suite.sh --test_output=all  # extra flags go to bazel test
set -euo pipefail
cd "$(dirname "$0")/.."
mapfile -t tests < <(tools/core_suite_tests.sh)
[ ${#tests[@]} -gt 0 ] || { echo "fake_gpu_suite.sh: no core tests found" >&2; exit 1; }
echo "== ${#tests[@]} core tests under --config=fake_gpu_suite"
exec nice bazel test --config=fake_gpu_suite --keep_going "$@" "${tests[@]}"
