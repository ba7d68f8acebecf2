#include "tools/tfd/train_model.h"

#include <cstdlib>
#include <fstream>
#include <string>
#include <vector>

#include "absl/strings/str_replace.h"
#include "core/io/file.h"
#include "core/nn/dtype_policy.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"

namespace tfd {
namespace cli {
namespace {

using ::testing::ElementsAre;
using ::testing::HasSubstr;

// tf-keras's model.to_json() of the Fashion-MNIST tutorial's MLP: input
// (None, 28, 28), Flatten, Dense(128, relu), Dense(10).
constexpr char kKerasMlp[] = "core/nn/testdata/fashion_mnist_mlp.json";

std::string TempPath(const std::string& name) {
  return std::string(std::getenv("TEST_TMPDIR")) + "/" + name;
}

TrainFlags JsonFlags(const std::string& path) {
  TrainFlags flags;
  flags.model_json = path;
  return flags;
}

TEST(TrainModelTest, FashionModelsTakeImagesWithAChannel) {
  TrainFlags flags;
  flags.model = "fashion_mlp";
  auto model = MakeTrainModel(flags);
  ASSERT_TRUE(model.ok()) << model.status();
  auto image = ModelImageShape(**model);
  ASSERT_TRUE(image.ok()) << image.status();
  EXPECT_THAT(*image, ElementsAre(28, 28, 1));
}

// --policy is the global policy while the model is built, and only then.
TEST(TrainModelTest, FashionModelsTakeThePolicy) {
  TrainFlags flags;
  flags.policy = "mixed_bfloat16";
  auto mixed = MakeTrainModel(flags);
  ASSERT_TRUE(mixed.ok()) << mixed.status();
  EXPECT_EQ((*mixed)->dtype_policy().name(), "mixed_bfloat16");
  EXPECT_EQ((*mixed)->layers().front()->dtype_policy().compute_dtype(), DT_BFLOAT16);
  EXPECT_EQ(nn::GlobalPolicy().name(), "float32");
  flags.policy = "mixed_float16";
  auto half = MakeTrainModel(flags);
  ASSERT_TRUE(half.ok()) << half.status();
  EXPECT_EQ((*half)->dtype_policy().name(), "mixed_float16");
  flags.policy = "mixed_int8";
  EXPECT_EQ(MakeTrainModel(flags).status().code(), absl::StatusCode::kInvalidArgument);
}

// A JSON model is read under --policy, as Keras's set_global_policy before
// model_from_json: its layers keep the dtype their JSON names, the model
// takes the policy (and with it Compile's loss scaling).
TEST(TrainModelTest, JsonLayersKeepTheirPoliciesUnderThePolicy) {
  auto json = io::ReadFileToString(kKerasMlp);
  ASSERT_TRUE(json.ok()) << json.status();
  // The hidden Dense computes in float16, the logits stay float32.
  const std::string mixed = absl::StrReplaceAll(
      *json, {{"\"dtype\": \"float32\", \"units\": 128",
               "\"dtype\": {\"module\": \"keras.mixed_precision\", \"class_name\": \"Policy\", "
               "\"config\": {\"name\": \"mixed_float16\"}, \"registered_name\": null}, "
               "\"units\": 128"}});
  ASSERT_NE(mixed, *json);
  const std::string path = TempPath("mixed_mlp.json");
  std::ofstream(path) << mixed;
  TrainFlags flags = JsonFlags(path);
  flags.policy = "mixed_float16";
  auto model = MakeTrainModel(flags);
  ASSERT_TRUE(model.ok()) << model.status();
  EXPECT_EQ((*model)->dtype_policy().name(), "mixed_float16");
  std::vector<std::string> policies;
  for (const auto& layer : (*model)->layers()) policies.push_back(layer->dtype_policy().name());
  EXPECT_THAT(policies, ElementsAre("float32", "mixed_float16", "float32"));
  EXPECT_EQ(nn::GlobalPolicy().name(), "float32");
  // The default: float32 for the model, the JSON's policies for the layers.
  flags.policy = "float32";
  model = MakeTrainModel(flags);
  ASSERT_TRUE(model.ok()) << model.status();
  EXPECT_EQ((*model)->dtype_policy().name(), "float32");
  EXPECT_EQ((*model)->layers()[1]->dtype_policy().name(), "mixed_float16");
}

TEST(TrainModelTest, KerasJsonModelAndItsImages) {
  auto model = MakeTrainModel(JsonFlags(kKerasMlp));
  ASSERT_TRUE(model.ok()) << model.status();
  EXPECT_EQ((*model)->name(), "sequential");
  auto image = ModelImageShape(**model);
  ASSERT_TRUE(image.ok()) << image.status();
  EXPECT_THAT(*image, ElementsAre(28, 28));
  // The loader's images, [n, 28, 28, 1], become views of [n, 28, 28].
  auto images = Tensor::FromVector<float>(std::vector<float>(3 * 784, 0.5f),
                                          TensorShape({3, 28, 28, 1}));
  ASSERT_TRUE(images.ok());
  FashionMnistSplit split{*images, Tensor()};
  ASSERT_TRUE(ShapeImagesFor(**model, &split).ok());
  EXPECT_EQ(split.images.shape(), TensorShape({3, 28, 28}));
  EXPECT_EQ(split.images.flat<float>().data(), images->flat<float>().data());
  EXPECT_EQ(ImagesShapedAs(*images, {28, 27}).status().code(),
            absl::StatusCode::kInvalidArgument);
}

TEST(TrainModelTest, ModelsThatDoNotFitFashionMnistAreRefused) {
  // Not 784 values an example.
  auto residual = MakeTrainModel(JsonFlags("core/nn/testdata/residual_functional.json"));
  EXPECT_EQ(residual.status().code(), absl::StatusCode::kInvalidArgument);
  EXPECT_THAT(residual.status().message(), HasSubstr("(8, 8, 3) per example does not hold one"));
  // Five classes out.
  auto json = io::ReadFileToString(kKerasMlp);
  ASSERT_TRUE(json.ok()) << json.status();
  const std::string five = absl::StrReplaceAll(*json, {{"\"units\": 10", "\"units\": 5"}});
  ASSERT_NE(five, *json);
  const std::string path = TempPath("five_classes.json");
  std::ofstream(path) << five;
  auto five_classes = MakeTrainModel(JsonFlags(path));
  EXPECT_EQ(five_classes.status().code(), absl::StatusCode::kInvalidArgument);
  EXPECT_THAT(five_classes.status().message(), HasSubstr("the model outputs (None, 5)"));
  // No such file; not JSON.
  EXPECT_EQ(MakeTrainModel(JsonFlags(TempPath("none.json"))).status().code(),
            absl::StatusCode::kNotFound);
  const std::string garbage = TempPath("garbage.json");
  std::ofstream(garbage) << "{not json";
  EXPECT_EQ(MakeTrainModel(JsonFlags(garbage)).status().code(),
            absl::StatusCode::kInvalidArgument);
}

}  // namespace
}  // namespace cli
}  // namespace tfd
