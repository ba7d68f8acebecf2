#!/usr/bin/env bash
# Runs the interop tests against the real TensorFlow and TensorBoard.
#
# The convention, for anyone adding a test:
#   - A test is a Python script tests/interop/<name>_test.py. It is run
#     from the repository root as `$VENV/bin/python tests/interop/<name>_test.py`
#     with no arguments, TF_USE_LEGACY_KERAS=1 (tf-keras 2.21 as tf.keras)
#     and a time limit of 10 minutes.
#   - Its C++ helpers are targets of //tests/interop (tests/interop/BUILD);
#     this script builds them all first, and the test runs them from
#     bazel-bin/tests/interop/<binary>.
#   - It writes only under a temporary directory (tempfile) and exits 0
#     when every check passed, non-zero otherwise, saying what failed.
#
#   tools/interop.sh          # every test
#   tools/interop.sh bundle   # only tests/interop/bundle_test.py
#
# Prints "INTEROP PASSED <name>" or "INTEROP FAILED <name>" per test, then
# "interop: P passed, F failed"; exit status 1 when any test failed.
set -uo pipefail
cd "$(dirname "$0")/.."

venv="${TFD_VENV:-$HOME/.cache/tfd-venv}"
if ! TFD_VENV="$venv" tools/interop_venv.sh; then
  echo "INTEROP FAILED venv (tools/interop_venv.sh)"
  echo "interop: 0 passed, 1 failed"
  exit 1
fi
if ! bazel build --noshow_progress //tests/interop/...; then
  echo "INTEROP FAILED build (//tests/interop/...)"
  echo "interop: 0 passed, 1 failed"
  exit 1
fi

tests=()
if [ $# -gt 0 ]; then
  for name in "$@"; do tests+=("tests/interop/${name}_test.py"); done
else
  tests=(tests/interop/*_test.py)
fi

passed=0
failed=0
for test in "${tests[@]}"; do
  name=$(basename "$test" _test.py)
  echo "== interop: $name =="
  if TF_USE_LEGACY_KERAS=1 TF_CPP_MIN_LOG_LEVEL=2 timeout 600 "$venv/bin/python" "$test"; then
    echo "INTEROP PASSED $name"
    passed=$((passed + 1))
  else
    echo "INTEROP FAILED $name"
    failed=$((failed + 1))
  fi
done
echo "interop: ${passed} passed, ${failed} failed"
[ "$failed" -eq 0 ]
