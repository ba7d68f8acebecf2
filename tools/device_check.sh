#!/usr/bin/env bash
# The one command of a run on a GPU machine: given the pack of
# tools/gpu_tests.sh (dist/gpu), it runs every GPU test, the benchmarks
# behind the GPU acceptance figures and the PyTorch reference
# (tools/bench/torch_reference.py), in about 8 minutes at most, and writes
# their logs and a summary (figure, tfd, torch, ratio) to the output
# directory. See docs/GPU.md.
#
#   tools/device_check.sh [PACK] [OUT]     # PACK: dist/gpu; OUT: $OUT, else device_check_out
#
# Figures (medians): MatMul 8192^3 bfloat16 TFLOP/s; the Fashion-MNIST
# CNN's training step at batch 256 (float32 and mixed_bfloat16), ms; the
# ResNet-50 training step at batch 256 under mixed_bfloat16, images/s (at
# batch 128 if 256 fails, which the summary says).
#
# Without a GPU it stops at once, saying so (exit 2); TFD_DEVICE_CHECK_FORCE=1
# runs everything anyway, to try the script itself on a machine without one.
# Exit status: 0 when every test passed and every figure was measured.
set -uo pipefail
here=$(cd "$(dirname "$0")" && pwd)
pack=${1:-dist/gpu}
out=${2:-${OUT:-device_check_out}}
python=${PYTHON:-python3}

fail() { echo "device_check.sh: $*" >&2; exit 2; }
[ -x "$pack/run.sh" ] && [ -f "$pack/TESTS" ] ||
  fail "$pack is not a pack of tools/gpu_tests.sh (no run.sh or TESTS); build it with tools/gpu_tests.sh"
pack=$(cd "$pack" && pwd)
mkdir -p "$out" || fail "cannot create $out"
out=$(cd "$out" && pwd)
started=$(date +%s)
log() { echo "== [$(( $(date +%s) - started ))s] $*" | tee -a "$out/device_check.log"; }

# Where is the torch reference: in the pack, else beside this script.
reference="$pack/torch_reference.py"
[ -f "$reference" ] || reference="$here/bench/torch_reference.py"

log "pack: $(sed -n 2p "$pack/MANIFEST" 2>/dev/null)"
gpus=$(timeout 30 nvidia-smi -L 2>&1)
gpu_rc=$?
echo "$gpus" > "$out/nvidia-smi.txt"
if [ $gpu_rc -ne 0 ] || ! grep -q "^GPU " <<<"$gpus"; then
  if [ "${TFD_DEVICE_CHECK_FORCE:-0}" != 1 ]; then
    echo "device_check.sh: no NVIDIA GPU here (nvidia-smi -L: ${gpus:-no output}, exit $gpu_rc)." >&2
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

# Runs a command with a time limit, its output to $out/NAME.log; echoes
# its exit status.
bounded() {  # name seconds command...
  local name=$1 limit=$2
  shift 2
  timeout --kill-after=10 "$limit" "$@" > "$out/$name.log" 2>&1
  local rc=$?
  [ $rc -eq 124 ] || [ $rc -eq 137 ] && echo "(timed out after ${limit}s)" >> "$out/$name.log"
  return $rc
}

# 1. Every GPU test, each bounded (run.sh fails a test that skips for
#    want of a device). The fashion data of mirrored_gpu_test come in the pack.
[ -d "$pack/data/fashion-mnist" ] && export TFD_FASHION_MNIST_DIR="$pack/data/fashion-mnist"
log "tests (each at most 90s, all at most 240s)"
bounded tests 240 "$pack/run.sh" --timeout 90 --out "$out/tests"
tests_rc=$?
grep -E "^== [0-9]+ passed|^FAILED" "$out/tests.log" | tee -a "$out/device_check.log"
[ $tests_rc -eq 124 ] && log "tests: stopped after 240s; the binaries not listed above did not run"

# 2. tfd's benchmarks, medians of 3 repetitions as JSON.
run_benchmark() {  # name seconds binary args...
  local name=$1 limit=$2 binary=$3
  shift 3
  log "benchmark $name"
  bounded "$name" "$limit" env LD_LIBRARY_PATH="$libs" "$pack/bin/$binary" \
    --benchmark_repetitions=3 --benchmark_report_aggregates_only=true \
    --benchmark_out="$out/$name.json" --benchmark_out_format=json "$@"
  local rc=$?
  # A benchmark that cannot run says ERROR OCCURRED and still exits 0.
  [ $rc -eq 0 ] && grep -q "ERROR OCCURRED" "$out/$name.log" && rc=1
  [ $rc -eq 0 ] || log "benchmark $name failed (exit $rc): $(grep -m1 "ERROR OCCURRED" "$out/$name.log")"
  return $rc
}
# The library path run.sh would use: the pack's lib/ and the nvidia pip packages.
libs="$pack/lib:$("$python" - 2>/dev/null <<'PY'
import glob, os
try:
    import nvidia
except ImportError:
    raise SystemExit
print(":".join(sorted({os.path.dirname(p) for r in nvidia.__path__
                       for p in glob.glob(os.path.join(r, "**", "lib*.so*"), recursive=True)})))
PY
)${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}"

run_benchmark matmul 90 core/kernels/cuda/matmul_kernels_benchmark \
  '--benchmark_filter=BM_MatMul<bfloat16>/8192/' --benchmark_min_time=0.5
run_benchmark fashion_cnn 120 tests/gpu/fashion_cnn_gpu_benchmark --benchmark_min_time=1
resnet_batch=256
if ! run_benchmark resnet50 180 tools/bench/resnet50_benchmark --batch=256 \
     --benchmark_min_time=2; then
  resnet_batch=128
  log "ResNet-50 at batch 256 failed; trying batch 128"
  run_benchmark resnet50 150 tools/bench/resnet50_benchmark --batch=128 \
    --benchmark_min_time=2
fi

# 3. The PyTorch reference, same shapes.
log "torch reference"
bounded torch 180 "$python" "$reference" --batch "$resnet_batch"
cp "$out/torch.log" "$out/torch.jsonl"
grep -v '^{' "$out/torch.log" | tail -3

# 4. The summary: one row per figure.
"$python" - "$out" "$resnet_batch" > "$out/summary.txt" 2>> "$out/device_check.log" <<'PY'
import json, os, sys
out, resnet_batch = sys.argv[1], int(sys.argv[2])

def medians(name):
    """run_name -> the median aggregate entry of a Google Benchmark JSON."""
    try:
        with open(os.path.join(out, name + ".json")) as f:
            runs = json.load(f).get("benchmarks", [])
    except (OSError, ValueError):
        return {}
    return {r["run_name"]: r for r in runs if r.get("aggregate_name") == "median"}

def torch_figures():
    figures = {}
    try:
        for line in open(os.path.join(out, "torch.jsonl")):
            if line.startswith("{"):
                record = json.loads(line)
                figures[record.get("figure")] = record
    except OSError:
        pass
    return figures

def ms(entry):  # Google Benchmark's real_time in its time_unit, as ms.
    scale = {"ns": 1e-6, "us": 1e-3, "ms": 1.0, "s": 1e3}[entry.get("time_unit", "ns")]
    return entry["real_time"] * scale

matmul, fashion, resnet = medians("matmul"), medians("fashion_cnn"), medians("resnet50")
torch = torch_figures()
rows = []  # figure, unit, tfd, torch, higher_is_better
def first(runs, prefix):
    return next((v for k, v in runs.items() if k.startswith(prefix)), None)
m = first(matmul, "BM_MatMul<bfloat16>/8192")
rows.append(("MatMul 8192^3 bf16", "TFLOP/s", m and m["FLOP/s"] / 1e12,
             torch.get("matmul_8192_bf16", {}).get("value"), True))
for arg, key, label in (("0", "f32", "float32"), ("1", "bf16", "mixed_bfloat16")):
    f = first(fashion, "BM_FashionCnnTrainStep/" + arg)
    rows.append(("Fashion CNN step b256 " + label, "ms", f and ms(f),
                 torch.get("fashion_cnn_train_" + key, {}).get("value"), False))
r = first(resnet, "BM_ResNet50TrainStep/")
rows.append(("ResNet-50 step b%d bf16" % resnet_batch, "images/s", r and r["images/s"],
             torch.get("resnet50_train_bf16", {}).get("value"), True))

def fmt(v):
    return "-" if v is None else "%.4g" % v
print("%-32s %-9s %10s %10s %s" % ("figure", "unit", "tfd", "torch", "tfd speed / torch's"))
summary = []
for figure, unit, ours, theirs, higher in rows:
    ratio = None
    if ours and theirs:
        ratio = ours / theirs if higher else theirs / ours
    print("%-32s %-9s %10s %10s %s" % (figure, unit, fmt(ours), fmt(theirs), fmt(ratio)))
    summary.append({"figure": figure, "unit": unit, "tfd": ours, "torch": theirs,
                    "tfd_speed_over_torch": ratio})
errors = [r for r in torch.values() if "error" in r]
for e in errors:
    print("torch error: %s: %s" % (e.get("figure"), e["error"]))
info = torch.get("torch_info", {})
if info:
    print("torch %s on %s" % (info.get("torch"), info.get("gpu", info.get("device"))))
with open(os.path.join(out, "summary.json"), "w") as f:
    json.dump({"figures": summary, "torch": info}, f, indent=1)
missing = [s["figure"] for s in summary if s["tfd"] is None or s["torch"] is None]
sys.exit(1 if missing else 0)
PY
summary_rc=$?
cat "$out/summary.txt" | tee -a "$out/device_check.log"
log "done"
[ $tests_rc -eq 0 ] && [ $summary_rc -eq 0 ]
