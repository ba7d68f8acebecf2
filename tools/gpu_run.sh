#!/usr/bin/env bash
# Runs the GPU tests packed by tools/gpu_tests.sh; copied into the pack as
# run.sh. Meant for a machine with an NVIDIA GPU: a test that skips for
# want of a device counts as a failure here, since finding the device is
# the point of running on that machine.
#
#   ./run.sh                     # every test
#   ./run.sh --core-suite        # every test, then the core tests (packed by
#                                # gpu_tests.sh --core-suite) with the GPU as
#                                # the default device (TFD_DEFAULT_DEVICE)
#   ./run.sh --benchmarks        # every test, then every benchmark
#   ./run.sh --out DIR ...       # also keep logs and benchmark JSON in DIR
#   ./run.sh relu ...            # only binaries whose path contains "relu"
#   ./run.sh --timeout 60 ...    # stop any one binary after 60 seconds
#
# The CUDA libraries (cudart, cuBLAS, cuDNN, NCCL) come from the Python
# environment's nvidia packages when there are any, else from the system.
set -uo pipefail
here=$(cd "$(dirname "$0")" && pwd)

benchmarks=0
core_suite=0
out=""
filter=""
limit=0
while [ $# -gt 0 ]; do
  case "$1" in
    --benchmarks) benchmarks=1 ;;
    --core-suite) core_suite=1 ;;
    --out) out=$2; shift ;;
    --timeout) limit=$2; shift ;;
    *) filter=$1 ;;
  esac
  shift
done
[ -n "$out" ] && mkdir -p "$out"

nvidia_libs=$(python3 - 2>/dev/null <<'PY'
import glob, os
try:
    import nvidia
except ImportError:
    raise SystemExit
dirs = set()
for root in nvidia.__path__:
    for lib in glob.glob(os.path.join(root, "**", "lib*.so*"), recursive=True):
        dirs.add(os.path.dirname(lib))
print(":".join(sorted(dirs)))
PY
)
export LD_LIBRARY_PATH="$here/lib${nvidia_libs:+:$nvidia_libs}${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}"
cat "$here/MANIFEST" 2>/dev/null | head -3
nvidia-smi -L 2>/dev/null || echo "run.sh: nvidia-smi is not available"

failed=()
passed=0
scratch=$(mktemp -d)
trap 'rm -rf "$scratch"' EXIT

run_one() {  # kind rel-path
  local kind=$1 rel=$2 log name dir=$scratch
  name=$(echo "$rel" | tr / _)
  log="$scratch/$name.log"
  echo "== $rel"
  if ldd "$here/bin/$rel" | grep -q "not found"; then
    ldd "$here/bin/$rel" | grep "not found"
    failed+=("$rel (missing libraries)")
    return
  fi
  local args=()
  if [ "$kind" = benchmark ]; then
    args=(--benchmark_min_time=0.2)
    [ -n "$out" ] && args+=(--benchmark_out="$out/$name.json" --benchmark_out_format=json)
  fi
  local env=(TEST_TMPDIR="$scratch")
  if [ "$kind" = core ]; then
    # As under `bazel test`: the working directory holds the test's data
    # files at their workspace paths. Every op without a placement runs on
    # the GPU (unless TFD_DEFAULT_DEVICE already says otherwise).
    [ -d "$here/runfiles" ] && dir=$here/runfiles
    env+=(TFD_DEFAULT_DEVICE="${TFD_DEFAULT_DEVICE:-/device:GPU:0}")
  fi
  local bounded=()
  [ "$limit" -gt 0 ] && bounded=(timeout --kill-after=10 "$limit")
  (cd "$dir" && env "${env[@]}" "${bounded[@]}" "$here/bin/$rel" "${args[@]}") 2>&1 |
    tee "$log"
  local rc=${PIPESTATUS[0]}
  [ -n "$out" ] && cp "$log" "$out/$name.log"
  if [ "$limit" -gt 0 ] && { [ "$rc" -eq 124 ] || [ "$rc" -eq 137 ]; }; then
    failed+=("$rel (timed out after ${limit}s)")
  elif [ "$rc" -ne 0 ]; then
    failed+=("$rel (exit $rc)")
  elif grep -q "no CUDA device" "$log"; then
    failed+=("$rel (skipped: no CUDA device seen)")
  else
    passed=$((passed + 1))
  fi
}

while read -r rel; do
  [ -z "$filter" ] || [[ "$rel" == *"$filter"* ]] && run_one test "$rel"
done < "$here/TESTS"
if [ "$core_suite" = 1 ]; then
  if [ ! -s "$here/CORE_TESTS" ]; then
    echo "run.sh: no core tests in this pack (pack it with gpu_tests.sh --core-suite)"
    failed+=("CORE_TESTS (empty)")
  else
    while read -r rel; do
      [ -z "$filter" ] || [[ "$rel" == *"$filter"* ]] && run_one core "$rel"
    done < "$here/CORE_TESTS"
  fi
fi
if [ "$benchmarks" = 1 ]; then
  while read -r rel; do
    [ -z "$filter" ] || [[ "$rel" == *"$filter"* ]] && run_one benchmark "$rel"
  done < "$here/BENCHMARKS"
fi

echo "== $passed passed, ${#failed[@]} failed"
for f in "${failed[@]}"; do echo "FAILED: $f"; done
[ ${#failed[@]} -eq 0 ]
