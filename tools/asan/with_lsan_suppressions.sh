#!/usr/bin/env bash
# Runs a test with tools/asan/lsan_suppressions.txt as LeakSanitizer's
# suppressions (--config=asan sets it as --run_under). The file is in the
# test's runfiles through this target's data; its path is made absolute
# here because LeakSanitizer reads it at exit, after tests that change
# directory (the Go test) or start child processes have done so.
set -euo pipefail
suppressions="${TEST_SRCDIR:?run by bazel test}/${TEST_WORKSPACE:-tfd}/tools/asan/lsan_suppressions.txt"
if [ ! -r "$suppressions" ]; then
  echo "with_lsan_suppressions.sh: $suppressions is missing" >&2
  exit 1
fi
export LSAN_OPTIONS="suppressions=${suppressions}${LSAN_OPTIONS:+:${LSAN_OPTIONS}}"
exec "$@"
