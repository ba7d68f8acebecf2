#!/usr/bin/env bash
# tfd train end to end on a tiny Fashion-MNIST-shaped dataset written here
# (96 training and 32 test images): under each loop and strategy it prints
# the model summary, its progress, and the final test line, and --logdir
# gets the TensorBoard event files and the CSV log; under each --policy it
# says which and trains.
set -u
TFD="${TEST_SRCDIR}/${TEST_WORKSPACE}/tools/tfd/tfd"
DATA="$TEST_TMPDIR/data"
mkdir -p "$DATA"
failures=0

source "${TEST_SRCDIR}/${TEST_WORKSPACE}/tools/tfd/tiny_fashion_data.sh"
write_tiny_fashion_data "$DATA"

# check NAME FILE PATTERN: FILE contains PATTERN.
check() {
  if ! grep -q -- "$3" "$2"; then
    echo "FAIL: $1: no '$3' in:"; cat "$2"; failures=$((failures + 1))
  fi
}

# loop strategy replicas strategy-class; CPU replicas (--devices=cpu), so
# the counts hold on a GPU machine too.
configs=("fit mirrored 2 MirroredStrategy" "custom mirrored 2 MirroredStrategy"
         "fit central_storage 2 CentralStorageStrategy" "custom one_device 1 OneDeviceStrategy")
for config in "${configs[@]}"; do
  read -r loop strategy replicas class <<<"$config"
  logdir="$TEST_TMPDIR/logs_${loop}_$strategy"
  out="$TEST_TMPDIR/out_${loop}_$strategy"
  if ! "$TFD" train --data_dir="$DATA" --strategy="$strategy" --replicas="$replicas" --devices=cpu \
      --epochs=2 --batch_size=32 --loop="$loop" --logdir="$logdir" >"$out" 2>&1; then
    echo "FAIL: tfd train --loop=$loop --strategy=$strategy exited with an error:"; cat "$out"
    failures=$((failures + 1))
    continue
  fi
  check "$loop" "$out" "$class with $replicas replica"
  check "$loop" "$out" "; 96 training and 32 test images, global batch 32"
  check "$loop" "$out" "Total params: 121930"
  check "$loop" "$out" "^test_loss: [0-9.]* - test_accuracy: [0-9.]*$"
  if [[ "$loop" == fit ]]; then
    check "$loop" "$out" "^Epoch 2/2"
    check "$loop" "$out" "3/3 \[==============================\] - .* - loss: .* - accuracy: .* - val_loss: .* - val_accuracy: "
  else
    check "$loop" "$out" "^Epoch 2, Loss: .*, Accuracy: .*, Test Loss: .*, Test Accuracy: "
  fi
  check "$loop" "$logdir/training.csv" "^epoch,accuracy,loss,val_accuracy,val_loss"
  check "$loop" "$logdir/training.csv" "^1,"
  for dir in train validation; do
    if ! ls "$logdir/$dir" | grep -q 'tfevents.*\.v2$'; then
      echo "FAIL: $loop: no event file in $logdir/$dir"; failures=$((failures + 1))
    fi
  done
done

# --policy: the model is built under Keras's global dtype policy and the
# run says which. mixed_bfloat16 must train (its loss falls from the first
# epoch to the last), mixed_float16 trains with loss scaling under the
# custom loop; the default is float32; a bad value is refused before
# anything is loaded.
check "float32" "$TEST_TMPDIR/out_fit_mirrored" "^Dtype policy: float32 (compute float32, variables float32)$"
# epoch_loss FILE N: Fit's loss on epoch N's last line.
epoch_loss() {
  awk -v n="$2" '/^Epoch [0-9]+\// { split($2, e, "/"); epoch = e[1] }
    epoch == n && /val_loss/ { sub(/.* - loss: /, ""); sub(/ .*/, ""); loss = $0 }
    END { print loss }' "$1" | tr -d '\r'
}
out="$TEST_TMPDIR/out_mixed_bfloat16"
if ! "$TFD" train --data_dir="$DATA" --devices=cpu --policy=mixed_bfloat16 --epochs=4 \
    --batch_size=16 >"$out" 2>&1; then
  echo "FAIL: tfd train --policy=mixed_bfloat16 exited with an error:"; cat "$out"
  failures=$((failures + 1))
else
  check "mixed_bfloat16" "$out" "^Dtype policy: mixed_bfloat16 (compute bfloat16, variables float32)$"
  check "mixed_bfloat16" "$out" "^test_loss: [0-9.]* - test_accuracy: [0-9.]*$"
  first=$(epoch_loss "$out" 1)
  last=$(epoch_loss "$out" 4)
  if ! awk -v a="$first" -v b="$last" 'BEGIN { exit !(a > 0 && b > 0 && b < a) }'; then
    echo "FAIL: mixed_bfloat16: the loss did not fall (epoch 1: '$first', epoch 4: '$last'):"
    cat "$out"; failures=$((failures + 1))
  fi
fi
out="$TEST_TMPDIR/out_mixed_float16"
if ! "$TFD" train --data_dir="$DATA" --devices=cpu --policy=mixed_float16 --loop=custom \
    --epochs=2 --batch_size=32 >"$out" 2>&1; then
  echo "FAIL: tfd train --policy=mixed_float16 --loop=custom exited with an error:"; cat "$out"
  failures=$((failures + 1))
else
  check "mixed_float16" "$out" "^Dtype policy: mixed_float16 (compute float16, variables float32)$"
  check "mixed_float16" "$out" "^test_loss: [0-9.]* - test_accuracy: [0-9.]*$"
fi
# --model_json under --policy: tf-keras's Fashion-MNIST MLP with its hidden
# Dense made mixed_float16 in the JSON. With --policy=mixed_float16 the
# model is mixed_float16 (loss scaling on) and the logits keep the float32
# their JSON names; without it the model is float32 and the run warns that
# the float16 layer trains without loss scaling.
json="$TEST_TMPDIR/mixed_mlp.json"
sed 's/"dtype": "float32", "units": 128/"dtype": {"module": "keras.mixed_precision", "class_name": "Policy", "config": {"name": "mixed_float16"}, "registered_name": null}, "units": 128/' \
  "${TEST_SRCDIR}/${TEST_WORKSPACE}/core/nn/testdata/fashion_mnist_mlp.json" >"$json"
check "mixed JSON" "$json" '"name": "mixed_float16"'
out="$TEST_TMPDIR/out_json_mixed_float16"
if ! "$TFD" train --data_dir="$DATA" --devices=cpu --policy=mixed_float16 --model_json="$json" \
    --epochs=1 --batch_size=32 >"$out" 2>&1; then
  echo "FAIL: tfd train --policy=mixed_float16 --model_json exited with an error:"; cat "$out"
  failures=$((failures + 1))
else
  check "JSON mixed_float16" "$out" "^Dtype policy: mixed_float16 (compute float16, variables float32)$"
  check "JSON mixed_float16" "$out" "^Layers with their own dtype policy: .*dense_1 (float32)"
  check "JSON mixed_float16" "$out" "^test_loss: [0-9.]* - test_accuracy: [0-9.]*$"
  if grep -q "^Warning: layers compute in float16" "$out"; then
    echo "FAIL: JSON mixed_float16: warns of missing loss scaling:"; cat "$out"
    failures=$((failures + 1))
  fi
fi
out="$TEST_TMPDIR/out_json_float32"
if ! "$TFD" train --data_dir="$DATA" --devices=cpu --model_json="$json" --epochs=1 \
    --batch_size=32 >"$out" 2>&1; then
  echo "FAIL: tfd train --model_json (mixed_float16 layers) exited with an error:"; cat "$out"
  failures=$((failures + 1))
else
  check "JSON float32" "$out" "^Dtype policy: float32 (compute float32, variables float32)$"
  check "JSON float32" "$out" "^Warning: layers compute in float16 but the model's policy is float32"
fi
out="$TEST_TMPDIR/out_bad_policy"
if "$TFD" train --data_dir=/nonexistent --policy=float16 >"$out" 2>&1; then
  echo "FAIL: tfd train --policy=float16 succeeded"; failures=$((failures + 1))
fi
check "bad policy" "$out" "--policy must be one of float32, mixed_float16, mixed_bfloat16, got 'float16'"

if [[ $failures -gt 0 ]]; then exit 1; fi
echo "PASS"
