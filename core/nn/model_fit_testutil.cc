#include "core/nn/model_fit_testutil.h"

#include "core/data/transforms.h"
#include "core/framework/status.h"
#include "core/framework/tensor_testutil.h"
#include "core/nn/adam.h"
#include "core/nn/dense.h"
#include "core/nn/sgd.h"
#include "gtest/gtest.h"

namespace tfd {
namespace nn {
namespace fit_test {

void MakeData(int n, Tensor* x, Tensor* y) {
  std::vector<float> xs;
  std::vector<int32_t> ys;
  for (int i = 0; i < n; ++i) {
    // Computed in double and rounded, as numpy does.
    for (int j = 0; j < 4; ++j) {
      xs.push_back(static_cast<float>(((i * 7 + j * 3) % 11) / 10.0 - 0.5));
    }
    ys.push_back((i * 5 % 3) % 2);
  }
  *x = tfd::test::AsTensor<float>(xs, {n, 4});
  *y = tfd::test::AsTensor<int32_t>(ys, {n});
}

absl::StatusOr<data::DatasetPtr> MakeDataset(int n, int batch) {
  Tensor x, y;
  MakeData(n, &x, &y);
  TFD_ASSIGN_OR_RETURN(data::DatasetPtr ds, data::FromTensorSlices({x, y}));
  return data::Batch(ds, batch, /*drop_remainder=*/false);
}

std::vector<float> Linspace(float a, float b, int n) {
  std::vector<float> out;
  for (int i = 0; i < n; ++i) {
    out.push_back(static_cast<float>(a + (static_cast<double>(b) - a) * i / (n - 1)));
  }
  return out;
}

absl::StatusOr<std::shared_ptr<Sequential>> MakeModel() {
  TFD_ASSIGN_OR_RETURN(auto model,
                       Sequential::Make({MakeInputLayer({kNone, 4}),
                                         std::make_shared<Dense>(3, DenseOptions().Activation(
                                                                        "relu")),
                                         std::make_shared<Dense>(2)}));
  const std::vector<Weight> w = model->weights();
  if (w.size() != 4) return absl::InternalError("expected 4 weights");
  TFD_RETURN_IF_ERROR(w[0]->AssignAll(tfd::test::AsTensor<float>(Linspace(-0.5, 0.5, 12), {4, 3})));
  TFD_RETURN_IF_ERROR(w[1]->AssignAll(tfd::test::AsTensor<float>({0.1f, -0.1f, 0.05f}, {3})));
  TFD_RETURN_IF_ERROR(w[2]->AssignAll(tfd::test::AsTensor<float>(Linspace(-0.4, 0.6, 6), {3, 2})));
  TFD_RETURN_IF_ERROR(w[3]->AssignAll(tfd::test::AsTensor<float>({0.0f, 0.1f}, {2})));
  return model;
}

std::shared_ptr<const Loss> LogitsLoss() {
  SparseCategoricalCrossentropy::Options options;
  options.from_logits = true;
  return std::make_shared<SparseCategoricalCrossentropy>(options);
}

std::shared_ptr<Optimizer> MakeSgd() {
  SGDOptions options;
  options.learning_rate = 0.1f;
  options.momentum = 0.9;
  return std::shared_ptr<Optimizer>(*SGD::Create(options));
}

std::shared_ptr<Optimizer> MakeAdam() {
  AdamOptions options;
  options.learning_rate = 0.01f;
  return std::shared_ptr<Optimizer>(*Adam::Create(options));
}

void ExpectNear(const std::vector<double>& got, const std::vector<double>& want, double tol) {
  ASSERT_EQ(got.size(), want.size());
  for (size_t i = 0; i < got.size(); ++i) EXPECT_NEAR(got[i], want[i], tol) << "at " << i;
}


absl::StatusOr<std::shared_ptr<History>> QuietFit(Model& model, data::DatasetPtr ds, int epochs,
                                                  std::vector<std::shared_ptr<Callback>> cbs) {
  FitOptions options;
  options.epochs = epochs;
  options.verbose = 0;
  options.callbacks = std::move(cbs);
  return model.Fit(std::move(ds), options);
}

}  // namespace fit_test
}  // namespace nn
}  // namespace tfd
