// Op determinism on the CPU: a model trained twice from the same seed, with
// op determinism on, ends with bit-identical weights. It holds on the CPU
// with determinism off too (its kernels split work by shape and thread
// count, never by timing; docs/GPU.md, "Determinism"); the test pins the
// guarantee. A small CNN (Conv2D, BatchNormalization, pooling, Dropout,
// Dense) and an embedding model (the gradient of Gather is an
// UnsortedSegmentSum) train a few Adam steps on batches big enough for the
// kernels to split across the pool's threads.
#include <cstring>
#include <memory>
#include <vector>

#include "core/autodiff/gradient_tape.h"
#include "core/framework/determinism.h"
#include "core/framework/tensor_testutil.h"
#include "core/kernels/random_seed.h"
#include "core/nn/adam.h"
#include "core/nn/batch_normalization.h"
#include "core/nn/conv.h"
#include "core/nn/dense.h"
#include "core/nn/dropout.h"
#include "core/nn/embedding.h"
#include "core/nn/layer_testutil.h"
#include "core/nn/losses.h"
#include "core/nn/pooling.h"
#include "core/nn/reshaping.h"
#include "core/nn/sequential.h"
#include "gtest/gtest.h"

namespace tfd {
namespace nn {
namespace {

using Bytes = std::vector<std::vector<char>>;

absl::StatusOr<std::shared_ptr<Sequential>> Cnn() {
  return Sequential::Make(
      {MakeInputLayer({kNone, 12, 12, 3}),
       std::make_shared<Conv2D>(16, std::vector<int64_t>{3}, ConvOptions().Activation("relu")),
       std::make_shared<BatchNormalization>(), std::make_shared<MaxPooling2D>(),
       std::make_shared<Flatten>(), std::make_shared<Dense>(32, DenseOptions().Activation("relu")),
       std::make_shared<Dropout>(0.25), std::make_shared<Dense>(5)});
}

absl::StatusOr<std::shared_ptr<Sequential>> EmbeddingModel() {
  return Sequential::Make({MakeInputLayer({kNone, 7}, DT_INT32),
                           std::make_shared<Embedding>(100, 16), std::make_shared<Flatten>(),
                           std::make_shared<Dense>(5)});
}

// Builds the model and its data from `seed`, trains 6 Adam steps and
// returns every weight's bytes (moving statistics included), and in
// *initial the weights' bytes before training.
void TrainAndRead(bool embedding, int64_t seed, Bytes* trained, Bytes* initial) {
  ClearSession();
  SetRandomSeed(seed);
  absl::StatusOr<std::shared_ptr<Sequential>> made = embedding ? EmbeddingModel() : Cnn();
  ASSERT_TRUE(made.ok()) << made.status();
  std::shared_ptr<Sequential> model = *made;
  const int64_t n = 256;
  Tensor x = embedding ? test::RandomTensor(DT_FLOAT, {n, 7}, 21, 0.0, 100.0)
                       : test::RandomTensor(DT_FLOAT, {n, 12, 12, 3}, 21);
  if (embedding) {
    absl::StatusOr<Tensor> ids = Execute1("Cast", {x}, AttrMap().Set("DstT", DT_INT32));
    ASSERT_TRUE(ids.ok()) << ids.status();
    x = *ids;
  }
  std::vector<int32_t> labels(n);
  for (int64_t i = 0; i < n; ++i) labels[i] = static_cast<int32_t>((i * 7) % 5);
  const Tensor y = tfd::test::AsTensor<int32_t>(labels, {n});

  AdamOptions adam;
  adam.learning_rate = 0.01f;
  ASSERT_OK_AND_ASSIGN(std::unique_ptr<Adam> opt, Adam::Create(adam));
  SparseCategoricalCrossentropy::Options loss_options;
  loss_options.from_logits = true;
  SparseCategoricalCrossentropy loss_fn(loss_options);
  auto read = [&](Bytes* out) {
    out->clear();
    for (const Weight& w : model->weights()) {
      // On the host: the weights live on the default device.
      const Tensor t = tfd::test::ToHost(w->component(0).Peek());
      const char* p = static_cast<const char*>(t.raw_data());
      out->emplace_back(p, p + t.TotalBytes());
    }
  };
  for (int step = 0; step < 6; ++step) {
    if (step == 0) read(initial);  // Built by the first call.
    GradientTape tape;
    ASSERT_OK_AND_ASSIGN(Tensor logits, model->Call(x, /*training=*/true));
    if (step == 0) read(initial);
    ASSERT_OK_AND_ASSIGN(Tensor loss, loss_fn.Call(y, logits));
    ASSERT_OK_AND_ASSIGN(std::vector<Tensor> grads,
                         tape.Gradient(loss, LocalVariables(model->TrainableVariables())));
    ASSERT_OK(opt->ApplyGradients(grads, model->TrainableVariables()));
  }
  read(trained);
  ClearRandomSeed();
}

class DeterminismTrainingTest : public ::testing::TestWithParam<bool> {
 protected:
  void SetUp() override { EnableOpDeterminism(true); }
  void TearDown() override { EnableOpDeterminism(false); }
};

TEST_P(DeterminismTrainingTest, SameSeedSameWeightsBitForBit) {
  const bool embedding = GetParam();
  Bytes first, second, initial, unused;
  TrainAndRead(embedding, 5, &first, &initial);
  TrainAndRead(embedding, 5, &second, &unused);
  ASSERT_EQ(first.size(), second.size());
  ASSERT_FALSE(first.empty());
  for (size_t i = 0; i < first.size(); ++i) {
    EXPECT_TRUE(first[i] == second[i]) << "weight " << i << " differs between the runs";
  }
  // Not vacuous: training moved every trainable weight the test reads.
  ASSERT_EQ(initial.size(), first.size());
  int moved = 0;
  for (size_t i = 0; i < first.size(); ++i) moved += first[i] != initial[i] ? 1 : 0;
  EXPECT_GE(moved, embedding ? 3 : 6) << "weights changed by training";
  // And the seed matters: another one gives other weights.
  Bytes other;
  TrainAndRead(embedding, 6, &other, &unused);
  EXPECT_NE(first, other);
}

INSTANTIATE_TEST_SUITE_P(Models, DeterminismTrainingTest, ::testing::Values(false, true),
                         [](const ::testing::TestParamInfo<bool>& info) {
                           return info.param ? "Embedding" : "Cnn";
                         });

}  // namespace
}  // namespace nn
}  // namespace tfd
