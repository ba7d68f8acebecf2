#!/usr/bin/env bash
# tfd train end to end on a tiny Fashion-MNIST-shaped dataset written here
# (96 training and 32 test images): under each loop and strategy it prints
# the model summary, its progress, and the final test line, and --logdir
# gets the TensorBoard event files and the CSV log.
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

if [[ $failures -gt 0 ]]; then exit 1; fi
echo "PASS"
