// The models' Keras summaries, checked against tf-keras 2.21's for the
// same Sequential models (parameter counts and output shapes), and their
// output on a batch.
#include "tools/tfd/fashion_models.h"

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

TEST(FashionModelsTest, UnknownModelIsRefused) {
  absl::StatusOr<std::shared_ptr<nn::Sequential>> model = MakeFashionModel("lenet");
  EXPECT_EQ(model.status().code(), absl::StatusCode::kInvalidArgument);
}

}  // namespace
}  // namespace cli
}  // namespace tfd
