#!/usr/bin/env bash
# Builds tests/fuzz/saved_model_loader_fuzzer with clang, libFuzzer,
# AddressSanitizer and UBSan, outside Bazel, and runs it for N seconds.
#
#   tools/fuzz_saved_model.sh [SECONDS=60] [extra libFuzzer flags...]
#
# Work goes to $FUZZ_OUT (default /tmp/tfd-fuzz-saved-model): objects, the
# binary, a growing corpus (seeded from tests/fuzz/corpus/saved_model_loader,
# which is never written to) and any crash-* files. Exits non-zero on a
# finding. The op declarations are linked (the loader checks op names and
# attrs) but no kernels: the target does not execute graphs.
set -euo pipefail
cd "$(dirname "$0")/.."

seconds=${1:-60}
shift || true
out=${FUZZ_OUT:-/tmp/tfd-fuzz-saved-model}
cxx=${CXX_FUZZ:-clang++}
mkdir -p "$out/gen" "$out/obj" "$out/corpus" "$out/artifacts"

# Generated protobuf code, from the same .proto files Bazel compiles.
protoc -I. --cpp_out="$out/gen" core/protobuf/*.proto

srcs=(
  core/framework/attr_value.cc core/framework/device.cc core/framework/execute.cc
  core/framework/kernel.cc core/framework/op_def.cc core/framework/tensor.cc
  core/framework/tensor_shape.cc core/framework/types.cc core/framework/variable.cc
  core/device/cpu/cpu_allocator.cc core/device/cpu/cpu_device.cc core/device/cpu/thread_pool.cc
  core/io/coding.cc core/io/crc32c.cc core/io/file.cc
  core/kernels/activation_ops.cc core/kernels/array_ops.cc core/kernels/array_util.cc
  core/kernels/broadcast.cc core/kernels/conv_geometry.cc core/kernels/conv_ops.cc
  core/kernels/conv_window.cc core/kernels/cwise_ops.cc core/kernels/fill_ops.cc
  core/kernels/gather_ops.cc core/kernels/linalg_ops.cc core/kernels/matmul_bcast.cc
  core/kernels/metrics_ops.cc core/kernels/nn_ops.cc core/kernels/random_ops.cc
  core/kernels/reduction_axes.cc core/kernels/reduction_ops.cc core/kernels/shape_ops.cc
  core/kernels/slice_ops.cc core/kernels/strided_slice_spec.cc core/kernels/training_ops.cc
  core/graph/attr_proto.cc core/graph/function_inliner.cc core/graph/graph.cc
  core/graph/graph_def.cc core/graph/graph_executor.cc core/graph/op_signature.cc
  core/graph/resource_variables.cc core/graph/tensor_proto.cc
  savedmodel/bundle/block.cc savedmodel/bundle/block_builder.cc
  savedmodel/bundle/string_tensor_coding.cc savedmodel/bundle/table_builder.cc
  savedmodel/bundle/table_format.cc savedmodel/bundle/table_reader.cc
  savedmodel/bundle/tensor_bundle.cc
  savedmodel/loader/checkpoint_ops.cc savedmodel/loader/saved_model_session.cc
  savedmodel/loader/supported_subgraph.cc
  tests/fuzz/saved_model_loader_fuzzer.cc
)
for p in "$out"/gen/core/protobuf/*.pb.cc; do srcs+=("$p"); done

flags=(-std=c++17 -O1 -g -fno-omit-frame-pointer -fsanitize=fuzzer-no-link,address,undefined
       -fno-sanitize-recover=undefined -I. -I"$out/gen")
objs=()
pids=()
for src in "${srcs[@]}"; do
  obj="$out/obj/$(echo "$src" | tr / _).o"
  objs+=("$obj")
  if [ ! -f "$obj" ] || [ "$src" -nt "$obj" ] || [ -n "$(find . -name '*.h' -newer "$obj" -print -quit 2>/dev/null)" ]; then
    "$cxx" "${flags[@]}" -c "$src" -o "$obj" &
    pids+=($!)
    # Two compilers at a time: the machines this runs on are small.
    if [ ${#pids[@]} -ge 2 ]; then wait "${pids[0]}"; pids=("${pids[@]:1}"); fi
  fi
done
for p in "${pids[@]}"; do wait "$p"; done

absl_libs=$(sed -n 's/.*"\(-labsl_[a-z0-9_]*\)".*/\1/p' third_party/absl/absl.BUILD | tr '\n' ' ')
# alwayslink: every op declaration object is linked whole, as Bazel does.
"$cxx" -fsanitize=fuzzer,address,undefined "${objs[@]}" -o "$out/saved_model_loader_fuzzer" \
  -lprotobuf $absl_libs -lpthread

echo "== fuzzing for ${seconds}s (corpus $out/corpus) =="
ASAN_OPTIONS=${ASAN_OPTIONS:-detect_leaks=1} \
"$out/saved_model_loader_fuzzer" -max_total_time="$seconds" -print_final_stats=1 \
  -rss_limit_mb=2048 -artifact_prefix="$out/artifacts/" "$@" \
  "$out/corpus" tests/fuzz/corpus/saved_model_loader
