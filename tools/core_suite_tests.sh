#!/usr/bin/env bash
# Prints the labels of the core suite: every test of core/ that runs with
# a GPU as the default device, on a GPU machine (tools/gpu_tests.sh
# --core-suite) or on the fake GPU (tools/fake_gpu_suite.sh). One list
# for both, so that what one skips the other skips too.
#
# Left out: the tests of the CUDA packages and the requires-gpu tests,
# which run as they are on a GPU machine (their CPU references must stay
# on the CPU), and tools/core_suite_excluded.txt, each with its reason. No
# core test needs Python, the TensorFlow venv or other processes; a test
# that needs one would be excluded there with its reason.
set -euo pipefail
cd "$(dirname "$0")/.."
query='tests(//core/...)
       except tests(//core/device/cuda/... + //core/kernels/cuda/...)
       except attr(tags, "requires-gpu", tests(//core/...))'
excluded=$(sed 's/#.*//' tools/core_suite_excluded.txt | awk 'NF { print $1 }')
bazel query --noshow_progress "$query" 2>/dev/null |
  { if [ -n "$excluded" ]; then grep -vxF "$excluded"; else cat; fi; }
