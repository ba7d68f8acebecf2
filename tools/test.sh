#!/usr/bin/env bash
# Runs every tfd test: the CPU build, then the CUDA build (which compiles
# and links the GPU code everywhere; its GPU tests skip with a reason where
# no device is present), then the interop tests against the real
# TensorFlow (tools/interop.sh, in a cached venv). Installs what it needs
# first.
#
#   tools/test.sh            # everything
#   tools/test.sh //core/... # a subset (both configs, no interop tests)
set -uo pipefail
cd "$(dirname "$0")/.."
tools/setup.sh || exit 1

targets=("$@")
[ ${#targets[@]} -eq 0 ] && targets=("//...")

# CI machines have 2 cores: keep Bazel from oversubscribing them.
common=(--noshow_progress --show_timestamps)
log=$(mktemp)
status=0
echo "== bazel test (CPU) =="
bazel test "${common[@]}" -- "${targets[@]}" 2>&1 | tee "$log" || status=1
echo "== bazel test --config=cuda (compiles CUDA; GPU tests skip without a device) =="
bazel test --config=cuda "${common[@]}" -- "${targets[@]}" 2>&1 | tee -a "$log" || status=1

# The interop tests need the whole tree; a subset run leaves them out.
if [ $# -eq 0 ]; then
  echo "== interop tests (TensorFlow from PyPI in a venv) =="
  tools/interop.sh 2>&1 | tee -a "$log" || status=1
fi

passed=$(( $(grep -cE '^//.* PASSED' "$log") + $(grep -cE '^INTEROP PASSED ' "$log") ))
failed=$(( $(grep -cE '^//.* (FAILED|TIMEOUT|NO STATUS|FAILED TO BUILD)' "$log") +
           $(grep -cE '^INTEROP FAILED ' "$log") ))
# CUDA-only tests are not built without --config=cuda: Bazel lists them as
# SKIPPED in the CPU pass and runs them in the CUDA pass.
skipped=$(grep -cE '^//.* SKIPPED' "$log")
rm -f "$log"
echo "tests: ${passed} passed, ${failed} failed, ${skipped} skipped (CUDA-only, CPU pass)"
exit $status
