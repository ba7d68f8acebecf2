#!/usr/bin/env bash
# The C ABI's robustness check: the C API tests (c_robustness_test calls
# every exported function with NULLs and wrong inputs) and the Java and Go
# binding tests, built with AddressSanitizer and UBSan (--config=asan, see
# .bazelrc) and run with LeakSanitizer on the C tests. A use after free,
# an overflow, undefined behaviour or a leak fails the test that caused it.
#
# Separate from tools/test.sh because it rebuilds the library and its
# dependencies instrumented: run it on changes to c_api/ or bindings/.
#
#   tools/asan_test.sh                 # //c_api/... and //bindings/...
#   tools/asan_test.sh //c_api:c_test  # a subset
#   tools/asan_test.sh --nocache_test_results //c_api/...   # flags pass through
set -uo pipefail
cd "$(dirname "$0")/.."
tools/setup.sh || exit 1

flags=()
targets=()
for arg in "$@"; do
  case "$arg" in
    -*) flags+=("$arg") ;;
    *) targets+=("$arg") ;;
  esac
done
[ ${#targets[@]} -eq 0 ] && targets=(//c_api/... //bindings/...)

start=$(date +%s)
bazel test --config=asan --noshow_progress --show_timestamps "${flags[@]}" -- "${targets[@]}"
status=$?
echo "tools/asan_test.sh: $(( $(date +%s) - start )) s, bazel test exit status ${status}"
exit $status
