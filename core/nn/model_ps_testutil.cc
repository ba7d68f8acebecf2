#include "core/nn/model_ps_testutil.h"

#include <algorithm>

#include "core/data/transforms.h"
#include "core/framework/status.h"
#include "core/kernels/random_seed.h"
#include "core/nn/dense.h"
#include "core/nn/input_layer.h"
#include "core/nn/losses.h"

namespace tfd {
namespace nn {

absl::StatusOr<data::DatasetPtr> Rows(int seed) {
  Tensor x(DT_FLOAT, {kRows, 4});
  Tensor y(DT_INT32, {kRows});
  uint32_t state = 12345;
  for (int64_t i = 0; i < kRows * 4; ++i) {
    state = state * 1664525u + 1013904223u;
    x.data<float>()[i] = (state >> 8) / static_cast<float>(1 << 24) * 2 - 1;
  }
  for (int64_t i = 0; i < kRows; ++i) {
    const float* row = x.data<float>() + 4 * i;
    y.data<int32_t>()[i] = static_cast<int32_t>(std::max_element(row, row + 3) - row);
  }
  TFD_ASSIGN_OR_RETURN(data::DatasetPtr rows, data::FromTensorSlices({x, y}));
  TFD_ASSIGN_OR_RETURN(rows, data::Shuffle(rows, kRows, seed));
  TFD_ASSIGN_OR_RETURN(rows, data::Repeat(rows));
  return data::Batch(rows, 16, true);
}

DatasetCreator Creator() {
  return {"rows", [](const data::InputContext& ctx) { return Rows(ctx.input_pipeline_id() + 1); }};
}

absl::StatusOr<data::DatasetPtr> FixedBatch(int64_t repeats) {
  Tensor x(DT_FLOAT, {16, 4});
  Tensor y(DT_INT32, {16});
  for (int64_t i = 0; i < 16 * 4; ++i) x.data<float>()[i] = static_cast<float>((i * 7) % 13) / 6 - 1;
  for (int64_t i = 0; i < 16; ++i) {
    const float* row = x.data<float>() + 4 * i;
    y.data<int32_t>()[i] = static_cast<int32_t>(std::max_element(row, row + 3) - row);
  }
  TFD_ASSIGN_OR_RETURN(data::DatasetPtr rows, data::FromTensorSlices({x, y}));
  TFD_ASSIGN_OR_RETURN(rows, data::Batch(rows, 16, false));
  return data::Repeat(rows, repeats);
}

absl::StatusOr<std::shared_ptr<Sequential>> BuildModel(std::shared_ptr<Optimizer> optimizer) {
  return BuildModelExecuting(std::move(optimizer), 1);
}

absl::StatusOr<std::shared_ptr<Sequential>> BuildModelExecuting(
    std::shared_ptr<Optimizer> optimizer, int steps_per_execution) {
  SetRandomSeed(3);
  TFD_ASSIGN_OR_RETURN(
      auto model,
      Sequential::Make({MakeInputLayer({kNone, 4}),
                        std::make_shared<Dense>(16, DenseOptions().Activation("relu").Name("hidden")),
                        std::make_shared<Dense>(3, DenseOptions().Name("logits"))}));
  SparseCategoricalCrossentropy::Options loss;
  loss.from_logits = true;
  CompileOptions compile;
  compile.optimizer = std::move(optimizer);
  compile.loss = std::make_shared<SparseCategoricalCrossentropy>(loss);
  compile.metrics = {"accuracy"};
  compile.steps_per_execution = steps_per_execution;
  TFD_RETURN_IF_ERROR(model->Compile(std::move(compile)));
  return model;
}

}  // namespace nn
}  // namespace tfd
