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
#   ./run.sh --core-only         # only the core tests
#   ./run.sh --benchmarks        # every test, then every benchmark
#   ./run.sh --out DIR ...       # also keep logs, benchmark JSON and
#                                # results.tsv in DIR
#   ./run.sh relu ...            # only binaries whose path contains "relu"
#   ./run.sh --exclude tests/gpu/ ...  # not those whose path contains it
#   ./run.sh --timeout 60 ...    # stop any one binary after 60 seconds
#   ./run.sh --deadline 300 ...  # start no binary after 300 seconds; each
#                                # one stops by then (the rest: not run)
#
# With --out, DIR/results.tsv gets one line per binary as soon as it ends
# (PASS, FAIL, TIMEOUT, SKIPPED, MISSING or NOTRUN, seconds, path, detail),
# so a run cut short still says what it did.
#
# The binaries find tfd's own libraries (bin/_solib_k8: the GPU kernels'
# shared library among them) through their $ORIGIN-relative RUNPATH, and
# the system libraries in lib/; the CUDA libraries (cudart, cuBLAS, cuDNN,
# NCCL) come from the Python environment's nvidia packages when there are
# any, else from the system.
set -uo pipefail
here=$(cd "$(dirname "$0")" && pwd)

run_tests=1
benchmarks=0
core_suite=0
out=""
filter=""
exclude=""
limit=0
deadline=0
while [ $# -gt 0 ]; do
  case "$1" in
    --benchmarks) benchmarks=1 ;;
    --core-suite) core_suite=1 ;;
    --core-only) core_suite=1; run_tests=0 ;;
    --out) out=$2; shift ;;
    --exclude) exclude=$2; shift ;;
    --timeout) limit=$2; shift ;;
    --deadline) deadline=$2; shift ;;
    -*) echo "run.sh: unknown option $1" >&2; exit 2 ;;
    *) filter=$1 ;;
  esac
  shift
done
for n in "$limit" "$deadline"; do
  [[ "$n" =~ ^[0-9]+$ ]] || { echo "run.sh: --timeout and --deadline take whole seconds, got '$n'" >&2; exit 2; }
done
results=/dev/null
if [ -n "$out" ]; then
  mkdir -p "$out" || exit 2
  results="$out/results.tsv"
fi
started=$(date +%s)

# The Python whose nvidia packages hold the CUDA libraries: device_check.sh
# passes the one it found (PYTHON), else python3 on the PATH.
python=${PYTHON:-python3}
nvidia_libs=$("$python" - 2>/dev/null <<'PY'
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
# bin/_solib_k8 too, though the RUNPATH finds it: a binary copied out of
# the pack still loads the kernels.
export LD_LIBRARY_PATH="$here/lib:$here/bin/_solib_k8${nvidia_libs:+:$nvidia_libs}${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}"
cat "$here/MANIFEST" 2>/dev/null | head -3
nvidia-smi -L 2>/dev/null || echo "run.sh: nvidia-smi is not available"

failed=()
passed=0
not_run=0
scratch=$(mktemp -d)
trap 'rm -rf "$scratch"' EXIT

record() {  # status seconds rel detail
  printf '%s\t%s\t%s\t%s\n' "$@" >> "$results"
}

selected() {  # rel: whether the filters take it
  { [ -z "$filter" ] || [[ "$1" == *"$filter"* ]]; } &&
    { [ -z "$exclude" ] || [[ "$1" != *"$exclude"* ]]; }
}

run_one() {  # kind rel-path
  local kind=$1 rel=$2 log name dir=$scratch
  name=$(echo "$rel" | tr / _)
  log="$scratch/$name.log"
  local bound=$limit
  if [ "$deadline" -gt 0 ]; then
    local left=$(( deadline - ($(date +%s) - started) ))
    if [ "$left" -lt 5 ]; then
      not_run=$((not_run + 1))
      record NOTRUN 0 "$rel" "deadline of ${deadline}s reached"
      return
    fi
    { [ "$bound" -eq 0 ] || [ "$bound" -gt "$left" ]; } && bound=$left
  fi
  echo "== $rel"
  if ldd "$here/bin/$rel" | grep -q "not found"; then
    ldd "$here/bin/$rel" | grep "not found"
    failed+=("$rel (missing libraries)")
    record MISSING 0 "$rel" "$(ldd "$here/bin/$rel" | grep "not found" | awk '{print $1}' | tr '\n' ' ')"
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
  [ "$bound" -gt 0 ] && bounded=(timeout --kill-after=10 "$bound")
  local t0
  t0=$(date +%s)
  (cd "$dir" && env "${env[@]}" "${bounded[@]}" "$here/bin/$rel" "${args[@]}" < /dev/null) 2>&1 |
    tee "$log"
  local rc=${PIPESTATUS[0]} seconds=$(( $(date +%s) - t0 ))
  [ -n "$out" ] && cp "$log" "$out/$name.log"
  if [ "$bound" -gt 0 ] && { [ "$rc" -eq 124 ] || [ "$rc" -eq 137 ]; }; then
    failed+=("$rel (timed out after ${bound}s)")
    record TIMEOUT "$seconds" "$rel" "stopped after ${bound}s"
  elif [ "$rc" -ne 0 ]; then
    failed+=("$rel (exit $rc)")
    record FAIL "$seconds" "$rel" "exit $rc: $(grep -m3 '^\[  FAILED  \]' "$log" | sed 's/^\[  FAILED  \] //' | tr '\n' ';')"
  elif grep -q "no CUDA device" "$log"; then
    failed+=("$rel (skipped: no CUDA device seen)")
    record SKIPPED "$seconds" "$rel" "skipped: no CUDA device seen"
  else
    passed=$((passed + 1))
    record PASS "$seconds" "$rel" ""
  fi
}

run_list() {  # kind file
  [ -f "$2" ] || return
  while read -r rel; do
    [ -n "$rel" ] && selected "$rel" && run_one "$1" "$rel"
  done < "$2"
}

[ "$run_tests" = 1 ] && run_list test "$here/TESTS"
if [ "$core_suite" = 1 ]; then
  if [ ! -s "$here/CORE_TESTS" ]; then
    echo "run.sh: no core tests in this pack (pack it with gpu_tests.sh --core-suite)"
    failed+=("CORE_TESTS (empty)")
  else
    run_list core "$here/CORE_TESTS"
  fi
fi
[ "$benchmarks" = 1 ] && run_list benchmark "$here/BENCHMARKS"

echo "== $passed passed, ${#failed[@]} failed, $not_run not run"
for f in "${failed[@]}"; do echo "FAILED: $f"; done
[ "$not_run" -gt 0 ] && echo "NOT RUN: $not_run binaries (the ${deadline}s deadline)"
[ ${#failed[@]} -eq 0 ] && [ "$not_run" -eq 0 ]
