// The models' Keras summaries, checked against tf-keras 2.21's for the
// same Sequential models (parameter counts and output shapes), and their
// output on a batch.
#include "tools/tfd/fashion_models.h"

#include "core/nn/dtype_policy.h"
#include "core/nn/layer_names.h"
#include "gtest/gtest.h"

namespace tfd {
namespace cli {
namespace {

std::string SummaryOf(const std::string& name) {
  nn::ClearSession();
  absl::StatusOr<std::shared_ptr<nn::Sequential>> model = MakeFashionModel(name);
  EXPECT_TRUE(model.ok()) << model.status();
  if (!model.ok()) return "";
  absl::StatusOr<std::string> summary = (*model)->Summary();
  EXPECT_TRUE(summary.ok()) << summary.status();
  return summary.ok() ? *summary : "";
}

void ExpectContains(const std::string& text, const std::string& part) {
  EXPECT_NE(text.find(part), std::string::npos) << "missing '" << part << "' in\n" << text;
}

TEST(FashionModelsTest, CnnSummaryMatchesKeras) {
  const std::string s = SummaryOf("fashion_cnn");
  ExpectContains(s, " conv2d (Conv2D)             (None, 26, 26, 32)        320");
  ExpectContains(s, " max_pooling2d (MaxPooling2  (None, 13, 13, 32)        0");
  ExpectContains(s, " conv2d_1 (Conv2D)           (None, 11, 11, 64)        18496");
  ExpectContains(s, " flatten (Flatten)           (None, 1600)              0");
  ExpectContains(s, " dense (Dense)               (None, 64)                102464");
  ExpectContains(s, " dense_1 (Dense)             (None, 10)                650");
  ExpectContains(s, "Total params: 121930 (476.29 KB)");
}

TEST(FashionModelsTest, MlpSummaryMatchesKeras) {
  const std::string s = SummaryOf("fashion_mlp");
  ExpectContains(s, " flatten (Flatten)           (None, 784)               0");
  ExpectContains(s, " dense (Dense)               (None, 128)               100480");
  ExpectContains(s, " dense_1 (Dense)             (None, 10)                1290");
  ExpectContains(s, "Total params: 101770 (397.54 KB)");
}

TEST(FashionModelsTest, ModelsGiveTenLogitsPerImage) {
  for (const char* name : {"fashion_cnn", "fashion_mlp"}) {
    absl::StatusOr<std::shared_ptr<nn::Sequential>> model = MakeFashionModel(name);
    ASSERT_TRUE(model.ok()) << model.status();
    Tensor images(DT_FLOAT, {3, 28, 28, 1});
    for (float& v : images.flat<float>()) v = 0.5f;
    absl::StatusOr<Tensor> logits = (*model)->Call(images, /*training=*/false);
    ASSERT_TRUE(logits.ok()) << logits.status();
    EXPECT_EQ(logits->shape(), TensorShape({3, 10})) << name;
  }
}

// Under mixed_bfloat16 the hidden layers compute in bfloat16 over float32
// weights, and the logits layer stays float32 (Keras's mixed-precision
// guide), so the model still returns float32 logits.
TEST(FashionModelsTest, MixedBfloat16ComputesInBfloat16WithFloat32Logits) {
  for (const char* name : {"fashion_cnn", "fashion_mlp"}) {
    absl::StatusOr<nn::DTypePolicy> mixed = nn::DTypePolicy::FromName("mixed_bfloat16");
    ASSERT_TRUE(mixed.ok()) << mixed.status();
    absl::StatusOr<std::shared_ptr<nn::Sequential>> model;
    {
      nn::ScopedGlobalPolicy scope(*mixed);
      model = MakeFashionModel(name);
    }
    ASSERT_TRUE(model.ok()) << model.status();
    const std::vector<std::shared_ptr<nn::Layer>>& layers = (*model)->layers();
    ASSERT_GE(layers.size(), 2u);
    EXPECT_EQ(layers.front()->dtype_policy().compute_dtype(), DT_BFLOAT16) << name;
    EXPECT_EQ(layers.back()->dtype_policy().name(), "float32") << name;
    for (const nn::Weight& w : (*model)->TrainableVariables()) {
      EXPECT_EQ(w->dtype(), DT_FLOAT) << name;
    }
    Tensor images(DT_FLOAT, {2, 28, 28, 1});
    for (float& v : images.flat<float>()) v = 0.25f;
    absl::StatusOr<Tensor> logits = (*model)->Call(images, /*training=*/false);
    ASSERT_TRUE(logits.ok()) << logits.status();
    EXPECT_EQ(logits->dtype(), DT_FLOAT) << name;
  }
  // The policy was scoped: models built after it are float32 throughout.
  absl::StatusOr<std::shared_ptr<nn::Sequential>> plain = MakeFashionModel("fashion_cnn");
  ASSERT_TRUE(plain.ok()) << plain.status();
  EXPECT_EQ((*plain)->layers().front()->dtype_policy().name(), "float32");
}

TEST(FashionModelsTest, UnknownModelIsRefused) {
  absl::StatusOr<std::shared_ptr<nn::Sequential>> model = MakeFashionModel("lenet");
  EXPECT_EQ(model.status().code(), absl::StatusCode::kInvalidArgument);
}

}  // namespace
}  // namespace cli
}  // namespace tfd
