#!/usr/bin/env bash
# The one command of a run on a GPU machine: given the pack of
# tools/gpu_tests.sh (dist/gpu), it runs, in this order of priority,
#   1. the GPU unit and kernel parity tests (every packed test outside
#      tests/gpu/),
#   2. the end-to-end GPU tests (tests/gpu/),
#   3. the benchmarks behind the GPU acceptance figures and the PyTorch
#      reference (tools/bench/torch_reference.py),
#   4. the Fashion-MNIST CNN trained by `tfd train` for 10 epochs on GPU:0,
#      in float32, then in mixed_bfloat16 (each must reach a test accuracy
#      of 0.90),
#   5. the core suite with the GPU as the default device (when the pack
#      has it: gpu_tests.sh --core-suite), in whatever time is left,
# and writes their logs and a summary to the output directory. A step
# whose binaries are not in the pack is left out, saying so: gpu_tests.sh
# packs the training apart, in dist/gpu-train, for a second GPU run of
# this script (both would not fit one run's 64 MiB and 540 s). Each step
# has its own time limit and all share a budget of 540 s
# (TFD_DEVICE_CHECK_BUDGET), so the summary is written before a GPU run's
# 10 minutes are up, whatever hangs. See docs/GPU.md.
#
#   tools/device_check.sh [PACK] [OUT]
#
# PACK is dist/gpu or dist/gpu-train (a compressed pack, unpacked to a
# scratch directory) or an unpacked one (dist/tfd-gpu); OUT is $OUT, else
# device_check_out.
#
# Figures (medians): MatMul 8192^3 bfloat16 TFLOP/s; the Fashion-MNIST
# CNN's training step at batch 256 (float32 and mixed_bfloat16), ms; the
# ResNet-50 training step at batch 256 under mixed_bfloat16, images/s (at
# batch 128 if 256 fails, which the summary says).
#
# Training (step 4): the final test accuracy and the wall time of each run
# go to train/results.tsv (PASS when the accuracy is at least 0.90 after
# 10 epochs on the GPU) and the summary.
#
# Without a GPU it stops at once, saying so (exit 2); TFD_DEVICE_CHECK_FORCE=1
# runs everything anyway, to try the script itself on a machine without one;
# there the training runs on the CPU, for TFD_DEVICE_CHECK_TRAIN_EPOCHS
# epochs (default 10; fewer, to rehearse it in minutes), and is reported
# as a REHEARSAL, never as a PASS.
# Exit status: 0 when every GPU test (steps 1 and 2) passed, every figure
# was measured and every training run passed, of those the pack holds. The
# core suite's results are in the summary and do not change the exit
# status: it may be cut short by the budget.
set -uo pipefail
here=$(cd "$(dirname "$0")" && pwd)
pack=${1:-dist/gpu}
out=${2:-${OUT:-device_check_out}}
budget=${TFD_DEVICE_CHECK_BUDGET:-540}
train_epochs=${TFD_DEVICE_CHECK_TRAIN_EPOCHS:-10}
started=$(date +%s)

fail() { echo "device_check.sh: $*" >&2; exit 2; }
[[ "$budget" =~ ^[0-9]+$ ]] || fail "TFD_DEVICE_CHECK_BUDGET must be whole seconds, got '$budget'"
[[ "$train_epochs" =~ ^[1-9][0-9]*$ ]] ||
  fail "TFD_DEVICE_CHECK_TRAIN_EPOCHS must be a whole number of epochs >= 1, got '$train_epochs'"
mkdir -p "$out" || fail "cannot create $out"
out=$(cd "$out" && pwd)
log() { echo "== [$(( $(date +%s) - started ))s] $*" | tee -a "$out/device_check.log"; }

# First the GPU: without one there is nothing to do, so say so before
# spending time unpacking.
gpus=$(timeout 30 nvidia-smi -L 2>&1)
gpu_rc=$?
echo "$gpus" > "$out/nvidia-smi.txt"
have_gpu=1
if [ $gpu_rc -ne 0 ] || ! grep -q "^GPU " <<<"$gpus"; then
  have_gpu=0
  if [ "${TFD_DEVICE_CHECK_FORCE:-0}" != 1 ]; then
    echo "device_check.sh: no GPU: nvidia-smi -L sees none" \
         "(${gpus:-no output}, exit $gpu_rc)." >&2
    echo "device_check.sh: run it on the GPU machine; TFD_DEVICE_CHECK_FORCE=1 runs it anyway." >&2
    echo "no GPU: nothing measured" > "$out/summary.txt"
    exit 2
  fi
  log "no GPU, running anyway (TFD_DEVICE_CHECK_FORCE=1): expect failures"
else
  log "$gpus"
  timeout 30 nvidia-smi --query-gpu=name,memory.total,clocks.max.sm,power.limit \
    --format=csv >> "$out/nvidia-smi.txt" 2>&1
fi

# dist/gpu (and dist/gpu-train) hold the pack compressed, one directory in
# a tarball: unpack it to a scratch directory.
tarball=$(ls "$pack"/tfd-gpu*.tar.xz "$pack"/tfd-gpu*.tar.gz 2>/dev/null | head -n 1)
if [ ! -x "$pack/run.sh" ] && [ -n "$tarball" ]; then
  scratch=$(mktemp -d "${TMPDIR:-/tmp}/tfd-gpu.XXXXXX") || fail "cannot make a scratch directory"
  trap 'rm -rf "$scratch"' EXIT
  tar -C "$scratch" -xf "$tarball" || fail "cannot unpack $tarball"
  pack=$(find "$scratch" -mindepth 2 -maxdepth 2 -name run.sh -printf '%h\n' | head -n 1)
  [ -n "$pack" ] || fail "$tarball holds no pack (no run.sh in its directory)"
fi
[ -x "$pack/run.sh" ] && [ -f "$pack/TESTS" ] ||
  fail "$pack is not a pack of tools/gpu_tests.sh (no run.sh and TESTS, nor" \
       "tfd-gpu*.tar.xz/.gz); build it with tools/gpu_tests.sh"
pack=$(cd "$pack" && pwd)
log "pack: $(sed -n 2p "$pack/MANIFEST" 2>/dev/null) (unpacked in $(( $(date +%s) - started ))s)"

# The Python with PyTorch (and the nvidia packages the binaries load).
python=${PYTHON:-}
if [ -z "$python" ]; then
  for candidate in python3 python /opt/torch/.venv/bin/python3; do
    if "$candidate" -c "import torch" > /dev/null 2>&1; then python=$candidate; break; fi
  done
  python=${python:-python3}
fi
log "python: $python ($("$python" --version 2>&1))"
export PYTHON="$python"  # run.sh finds the nvidia libraries through it too
# The torch reference and the summary: beside this script in the tree
# (tools/bench), else the pack's copies (the script run from a pack).
reference="$here/bench/torch_reference.py"
[ -f "$reference" ] || reference="$pack/torch_reference.py"
summarize="$here/bench/device_summary.py"
[ -f "$summarize" ] || summarize="$pack/device_summary.py"

# Seconds a step may take: its own limit, or what is left of the budget
# (0: not enough left to start it).
step_limit() {  # seconds
  local left=$(( budget - ($(date +%s) - started) ))
  if [ "$left" -lt 15 ]; then echo 0
  elif [ "$1" -gt "$left" ]; then echo "$left"
  else echo "$1"
  fi
}

# Runs a command within `seconds`, its output to $out/NAME.log; returns
# its exit status, 124 when it timed out or was not run for want of time.
bounded() {  # name seconds command...
  local name=$1 limit=$2
  shift 2
  if [ "$limit" -eq 0 ]; then
    echo "(not run: the ${budget}s budget is spent)" > "$out/$name.log"
    log "$name: not run, the ${budget}s budget is spent"
    return 124
  fi
  timeout --kill-after=10 "$limit" "$@" > "$out/$name.log" 2>&1
  local rc=$?
  { [ $rc -eq 124 ] || [ $rc -eq 137 ]; } && echo "(timed out after ${limit}s)" >> "$out/$name.log"
  return $rc
}

# A part of run.sh's binaries: run.sh stops starting binaries 10 s before
# the step's limit, so its own summary and results.tsv are complete (a
# binary it did not start is NOTRUN there).
run_part() {  # name seconds-at-most run.sh-args...
  local name=$1 limit
  limit=$(step_limit "$2")
  [ "$limit" -lt 20 ] && limit=0
  shift 2
  local deadline=$(( limit > 20 ? limit - 10 : 10 ))
  bounded "$name" "$limit" "$pack/run.sh" --deadline "$deadline" --out "$out/$name" "$@"
  local rc=$?
  grep -E "^== [0-9]+ passed|^FAILED|^NOT RUN" "$out/$name.log" | tee -a "$out/device_check.log"
  [ $rc -eq 124 ] && log "$name: stopped after ${limit}s"
  return $rc
}

# 1 and 2: the GPU tests, each binary bounded (run.sh fails a test that
# skips for want of a device). The Fashion-MNIST files of
# mirrored_gpu_test come in the pack.
[ -d "$pack/data/fashion-mnist" ] && export TFD_FASHION_MNIST_DIR="$pack/data/fashion-mnist"
tests_rc=0
e2e_rc=0
if [ -s "$pack/TESTS" ]; then
  log "GPU unit and kernel parity tests (each at most 90s, all at most 150s)"
  run_part tests 150 --timeout 90 --exclude tests/gpu/
  tests_rc=$?
  log "end-to-end GPU tests (each at most 90s, all at most 120s)"
  run_part e2e 120 --timeout 90 tests/gpu/
  e2e_rc=$?
else
  log "GPU tests: none in this pack"
fi

# 3. tfd's benchmarks, medians of 3 repetitions as JSON.
# The library path run.sh uses: the pack's lib/ and the nvidia pip packages.
libs="$pack/lib:$pack/bin/_solib_k8:$("$python" - 2>/dev/null <<'PY'
import glob, os
try:
    import nvidia
except ImportError:
    raise SystemExit
print(":".join(sorted({os.path.dirname(p) for r in nvidia.__path__
                       for p in glob.glob(os.path.join(r, "**", "lib*.so*"), recursive=True)})))
PY
)${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}"
run_benchmark() {  # name seconds binary args...
  local name=$1 limit binary=$3
  limit=$(step_limit "$2")
  shift 3
  log "benchmark $name"
  bounded "$name" "$limit" env LD_LIBRARY_PATH="$libs" "$pack/bin/$binary" \
    --benchmark_repetitions=3 --benchmark_report_aggregates_only=true \
    --benchmark_out="$out/$name.json" --benchmark_out_format=json "$@"
  local rc=$?
  # A benchmark that cannot run says ERROR OCCURRED and still exits 0.
  [ $rc -eq 0 ] && grep -q "ERROR OCCURRED" "$out/$name.log" && rc=1
  [ $rc -eq 0 ] ||
    log "benchmark $name failed (exit $rc): $(grep -m1 "ERROR OCCURRED" "$out/$name.log")"
  return $rc
}
resnet_batch=256
resnet_name=resnet50
figures=()
if [ -s "$pack/BENCHMARKS" ]; then
  run_benchmark matmul 60 core/kernels/cuda/matmul_kernels_benchmark \
    '--benchmark_filter=BM_MatMul<bfloat16>/8192/' --benchmark_min_time=0.5
  run_benchmark fashion_cnn 90 tests/gpu/fashion_cnn_gpu_benchmark --benchmark_min_time=1
  if ! run_benchmark resnet50 150 tools/bench/resnet50_benchmark --batch=256 \
       --benchmark_min_time=2; then
    # Out of memory at 256: measure 128 instead (tfd and torch alike).
    if grep -qiE "out of memory|RESOURCE_EXHAUSTED|allocat" "$out/resnet50.log"; then
      resnet_batch=128
      resnet_name=resnet50_b128
      log "ResNet-50 at batch 256 ran out of memory; trying batch 128"
      run_benchmark resnet50_b128 120 tools/bench/resnet50_benchmark --batch=128 \
        --benchmark_min_time=2
    fi
  fi
  log "torch reference"
  bounded torch "$(step_limit 180)" "$python" "$reference" --batch "$resnet_batch"
  cp "$out/torch.log" "$out/torch.jsonl"
  grep -v '^{' "$out/torch.log" | tail -3
else
  log "benchmarks: none in this pack, so no figures"
  figures=(--no-figures)
fi

# 4. Ten epochs of `tfd train` (the default model, the Fashion-MNIST CNN;
# Adam, batch 64, seed 42) on GPU:0 under OneDeviceStrategy, each policy
# with its own limit. On the CPU (a forced run without a GPU) it is a
# rehearsal of this step, not the acceptance.
train_rc=0
tfd_binary=$pack/bin/tools/tfd/tfd
if [ -x "$tfd_binary" ] && [ -f "$pack/data/fashion-mnist/train-images-idx3-ubyte.gz" ]; then
  mkdir -p "$out/train"
  train_devices=gpu
  train_where=GPU:0
  if [ "$have_gpu" = 0 ]; then
    train_devices=cpu
    train_where=CPU
  fi
  # policy seconds-at-most: one run, one line in train/results.tsv
  # (status, seconds, policy, test_accuracy=... epochs=done/asked
  # device=... [why]).
  run_training() {
    local policy=$1 limit t0 rc seconds accuracy finished status why=""
    limit=$(step_limit "$2")
    log "tfd train --policy=$policy: $train_epochs epochs on $train_where (at most ${limit}s)"
    t0=$(date +%s)
    bounded "train/$policy" "$limit" env LD_LIBRARY_PATH="$libs" "$tfd_binary" train \
      --strategy=one_device --devices="$train_devices" --policy="$policy" \
      --epochs="$train_epochs" --seed=42 --data_dir="$pack/data/fashion-mnist"
    rc=$?
    seconds=$(( $(date +%s) - t0 ))
    local run_log=$out/train/$policy.log
    accuracy=$(sed -n 's/^test_loss: [^ ]* - test_accuracy: \([0-9.]*\)$/\1/p' "$run_log" | tail -n 1)
    # Fit ends each epoch's line with the test set's val_accuracy: a run
    # cut short still says how far it got.
    finished=$(grep -c "val_accuracy: " "$run_log")
    if [ -z "$accuracy" ]; then
      accuracy=$(grep -o "val_accuracy: [0-9.]*" "$run_log" | tail -n 1 | cut -d' ' -f2)
    fi
    if [ "$limit" -eq 0 ]; then status=NOTRUN; why="the ${budget}s budget is spent"
    elif [ $rc -eq 124 ] || [ $rc -eq 137 ]; then status=TIMEOUT; why="stopped after ${limit}s"
    elif [ $rc -ne 0 ]; then
      status=FAIL; why="exit $rc: $(grep -v '^ *$' "$run_log" | tail -n 1 | tr '\t' ' ')"
    elif [ -z "$accuracy" ]; then status=FAIL; why="no test accuracy in its output"
    elif [ "$have_gpu" = 0 ] || [ "$train_epochs" -ne 10 ]; then
      # Whatever its accuracy, only 10 epochs on the GPU are the acceptance.
      status=REHEARSAL; why="a rehearsal: $train_epochs of 10 epochs, on $train_where"
    elif awk -v a="$accuracy" 'BEGIN { exit !(a >= 0.90) }'; then status=PASS
    else status=FAIL; why="below 0.90"
    fi
    printf '%s\t%s\t%s\t%s\n' "$status" "$seconds" "$policy" \
      "test_accuracy=${accuracy:-none} epochs=$finished/$train_epochs device=$train_where${why:+ ($why)}" \
      >> "$out/train/results.tsv"
    log "tfd train --policy=$policy: $status, test accuracy ${accuracy:-none} after $finished epochs, ${seconds}s${why:+ ($why)}"
    [ "$status" = PASS ]
  }
  run_training float32 200 || train_rc=1
  run_training mixed_bfloat16 240 || train_rc=1
else
  log "training: not in this pack (tools/gpu_tests.sh packs it apart, in dist/gpu-train)"
fi

# 5. The core suite, with the GPU as the default device, in the time left
# (keeping 20 s for the summary).
if [ -s "$pack/CORE_TESTS" ]; then
  core_limit=$(( budget - ($(date +%s) - started) - 20 ))
  [ "$core_limit" -lt 0 ] && core_limit=0
  log "core suite, GPU:0 as the default device ($(wc -l < "$pack/CORE_TESTS") tests, each at most 60s, all at most ${core_limit}s)"
  run_part core "$core_limit" --timeout 60 --core-only
else
  log "core suite: not in this pack (tools/gpu_tests.sh --core-suite packs it)"
fi

# The summary: the tests' counts per step and one row per figure.
"$python" "$summarize" "$out" "$resnet_name" "${figures[@]}" > "$out/summary.txt" \
  2>> "$out/device_check.log"
summary_rc=$?
cat "$out/summary.txt" | tee -a "$out/device_check.log"
log "done"
[ $tests_rc -eq 0 ] && [ $e2e_rc -eq 0 ] && [ $summary_rc -eq 0 ] && [ $train_rc -eq 0 ]
