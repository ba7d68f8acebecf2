// Shared fixtures of the Fit tests: the data, model and optimizers of
// testdata/fit_golden.py (a Dense(3, relu) -> Dense(2) MLP with fixed
// weights on 10 rows of 4 features), and small helpers.
#ifndef TFD_CORE_NN_MODEL_FIT_TESTUTIL_H_
#define TFD_CORE_NN_MODEL_FIT_TESTUTIL_H_

#include <memory>
#include <vector>

#include "core/data/dataset.h"
#include "core/nn/callbacks/callback.h"
#include "core/nn/losses.h"
#include "core/nn/optimizer.h"
#include "core/nn/sequential.h"

namespace tfd {
namespace nn {
namespace fit_test {

// x[i][j] = ((7i + 3j) mod 11) / 10 - 0.5 (float32 of the double, as
// numpy), y[i] = (5i mod 3) mod 2 (int32).
void MakeData(int n, Tensor* x, Tensor* y);
// (x, y) of n rows in batches of `batch` (the last one partial).
absl::StatusOr<data::DatasetPtr> MakeDataset(int n, int batch);
// numpy's linspace(a, b, n) in float32.
std::vector<float> Linspace(float a, float b, int n);
// Input(4) -> Dense(3, relu) -> Dense(2) with fit_golden.py's weights.
absl::StatusOr<std::shared_ptr<Sequential>> MakeModel();
// SparseCategoricalCrossentropy(from_logits=True).
std::shared_ptr<const Loss> LogitsLoss();
// SGD(0.1, momentum 0.9) and Adam(0.01).
std::shared_ptr<Optimizer> MakeSgd();
std::shared_ptr<Optimizer> MakeAdam();
// Fits `model` (compiled) for `epochs` on `ds` with verbose 0.
absl::StatusOr<std::shared_ptr<History>> QuietFit(Model& model, data::DatasetPtr ds, int epochs,
                                                  std::vector<std::shared_ptr<Callback>> cbs = {});
void ExpectNear(const std::vector<double>& got, const std::vector<double>& want, double tol);

// Records the logs of every train batch end, as the golden script prints.
class BatchRecorder : public Callback {
 public:
  absl::Status OnTrainBatchEnd(int64_t batch, Logs& logs) override {
    batches.push_back(batch);
    logs_.push_back(logs);
    return absl::OkStatus();
  }
  std::vector<int64_t> batches;
  std::vector<Logs> logs_;
};

}  // namespace fit_test
}  // namespace nn
}  // namespace tfd

#endif  // TFD_CORE_NN_MODEL_FIT_TESTUTIL_H_
