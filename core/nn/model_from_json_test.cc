// ModelFromJson against JSON written by tf-keras 2.21 (testdata/, made by
// make_keras_json.py): the rebuilt models print tf-keras's summaries byte
// for byte, keep Keras's weight names, run, and bad or unsupported JSON
// gives errors that name the problem.
#include "core/nn/model_from_json.h"

#include <algorithm>
#include <string>
#include <utility>
#include <vector>

#include "absl/strings/str_replace.h"
#include "core/framework/tensor.h"
#include "core/framework/tensor_testutil.h"
#include "core/io/file.h"
#include "core/nn/functional.h"
#include "core/nn/sequential.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"

namespace tfd {
namespace nn {
namespace {

using ::testing::HasSubstr;

std::string ReadTestdata(const std::string& name) {
  absl::StatusOr<std::string> text = io::ReadFileToString("core/nn/testdata/" + name);
  EXPECT_TRUE(text.ok()) << text.status();
  return text.ok() ? *text : "";
}

std::vector<std::string> WeightNames(const Model& model) {
  std::vector<std::string> names;
  for (const Weight& w : model.weights()) names.push_back(w->name());
  return names;
}

TEST(ModelFromJsonTest, FashionMnistMlpAsTfKeras) {
  absl::StatusOr<std::shared_ptr<Model>> model =
      ModelFromJson(ReadTestdata("fashion_mnist_mlp.json"));
  ASSERT_TRUE(model.ok()) << model.status();
  EXPECT_NE(std::dynamic_pointer_cast<Sequential>(*model), nullptr);
  absl::StatusOr<std::string> summary = (*model)->Summary();
  ASSERT_TRUE(summary.ok()) << summary.status();
  EXPECT_EQ(*summary, ReadTestdata("fashion_mnist_mlp_summary.txt"));
  EXPECT_THAT(WeightNames(**model), ::testing::ElementsAre("dense/kernel", "dense/bias",
                                                           "dense_1/kernel", "dense_1/bias"));
  absl::StatusOr<Tensor> x = Tensor::Allocate(DT_FLOAT, TensorShape({2, 28, 28}));
  ASSERT_TRUE(x.ok());
  std::fill(x->data<float>(), x->data<float>() + x->NumElements(), 0.5f);
  absl::StatusOr<Tensor> y = (*model)->Call(*x);
  ASSERT_TRUE(y.ok()) << y.status();
  EXPECT_EQ(y->shape(), TensorShape({2, 10}));
}

TEST(ModelFromJsonTest, FashionMnistCnnAsTfKeras) {
  absl::StatusOr<std::shared_ptr<Model>> model =
      ModelFromJson(ReadTestdata("fashion_mnist_cnn.json"));
  ASSERT_TRUE(model.ok()) << model.status();
  absl::StatusOr<std::string> summary = (*model)->Summary();
  ASSERT_TRUE(summary.ok()) << summary.status();
  EXPECT_EQ(*summary, ReadTestdata("fashion_mnist_cnn_summary.txt"));
  absl::StatusOr<Tensor> x = Tensor::Allocate(DT_FLOAT, TensorShape({1, 28, 28, 1}));
  ASSERT_TRUE(x.ok());
  std::fill(x->data<float>(), x->data<float>() + x->NumElements(), 0.25f);
  absl::StatusOr<Tensor> y = (*model)->Call(*x, /*training=*/true);
  ASSERT_TRUE(y.ok()) << y.status();
  EXPECT_EQ(y->shape(), TensorShape({1, 10}));
}

TEST(ModelFromJsonTest, FunctionalResidualBlockAsTfKeras) {
  absl::StatusOr<std::shared_ptr<Model>> model =
      ModelFromJson(ReadTestdata("residual_functional.json"));
  ASSERT_TRUE(model.ok()) << model.status();
  auto functional = std::dynamic_pointer_cast<Functional>(*model);
  ASSERT_NE(functional, nullptr);
  EXPECT_EQ(functional->name(), "model");
  absl::StatusOr<std::string> summary = (*model)->Summary();
  ASSERT_TRUE(summary.ok()) << summary.status();
  EXPECT_EQ(*summary, ReadTestdata("residual_functional_summary.txt"));
  absl::StatusOr<Tensor> x = Tensor::Allocate(DT_FLOAT, TensorShape({2, 8, 8, 3}));
  ASSERT_TRUE(x.ok());
  std::fill(x->data<float>(), x->data<float>() + x->NumElements(), 1.0f);
  absl::StatusOr<Tensor> y = (*model)->Call(*x);
  ASSERT_TRUE(y.ok()) << y.status();
  ASSERT_EQ(y->shape(), TensorShape({2, 3}));
  // Softmax output: each row sums to one.
  const Tensor host = tfd::test::ToHost(*y);
  EXPECT_NEAR(host.data<float>()[0] + host.data<float>()[1] + host.data<float>()[2], 1.0f,
              1e-5);
}

TEST(ModelFromJsonTest, ZeroPaddingAsTfKeras) {
  absl::StatusOr<std::shared_ptr<Model>> model =
      ModelFromJson(ReadTestdata("zero_padding_functional.json"));
  ASSERT_TRUE(model.ok()) << model.status();
  absl::StatusOr<std::string> summary = (*model)->Summary();
  ASSERT_TRUE(summary.ok()) << summary.status();
  EXPECT_EQ(*summary, ReadTestdata("zero_padding_functional_summary.txt"));
  absl::StatusOr<Tensor> x = Tensor::Allocate(DT_FLOAT, TensorShape({2, 6, 5, 2}));
  ASSERT_TRUE(x.ok());
  std::fill(x->data<float>(), x->data<float>() + x->NumElements(), 1.0f);
  absl::StatusOr<Tensor> y = (*model)->Call(*x);
  ASSERT_TRUE(y.ok()) << y.status();
  EXPECT_EQ(y->shape(), TensorShape({2, 3}));

  // Keras's checks of the padding's form, from the layer's constructor.
  std::string json = ReadTestdata("zero_padding_functional.json");
  const std::string padding = "\"padding\": [[1, 1], [1, 1]]";
  ASSERT_NE(json.find(padding), std::string::npos);
  model = ModelFromJson(
      absl::StrReplaceAll(json, {{padding, "\"padding\": [[1, 1, 1], [1, 1]]"}}));
  ASSERT_FALSE(model.ok());
  EXPECT_THAT(model.status().message(),
              HasSubstr("The `1st entry of padding` argument must be a tuple of 2 integers"));
}

TEST(ModelFromJsonTest, SharedLayerIsCalledOncePerNode) {
  const char* json = R"({"class_name": "Functional", "config": {"name": "shared",
    "layers": [
      {"class_name": "InputLayer", "name": "a", "inbound_nodes": [],
       "config": {"batch_input_shape": [null, 4], "dtype": "float32", "name": "a"}},
      {"class_name": "InputLayer", "name": "b", "inbound_nodes": [],
       "config": {"batch_input_shape": [null, 4], "dtype": "float32", "name": "b"}},
      {"class_name": "Dense", "name": "proj", "config": {"name": "proj", "units": 2},
       "inbound_nodes": [[["a", 0, 0, {}]], [["b", 0, 0, {}]]]},
      {"class_name": "Subtract", "name": "diff", "config": {"name": "diff"},
       "inbound_nodes": [[["proj", 0, 0, {}], ["proj", 1, 0, {}]]]}],
    "input_layers": [["a", 0, 0], ["b", 0, 0]],
    "output_layers": [["diff", 0, 0]]}})";
  absl::StatusOr<std::shared_ptr<Model>> model = ModelFromJson(json);
  ASSERT_TRUE(model.ok()) << model.status();
  EXPECT_THAT(WeightNames(**model), ::testing::ElementsAre("proj/kernel", "proj/bias"));
  absl::StatusOr<Tensor> x = Tensor::Allocate(DT_FLOAT, TensorShape({3, 4}));
  ASSERT_TRUE(x.ok());
  std::fill(x->data<float>(), x->data<float>() + x->NumElements(), 2.0f);
  absl::StatusOr<Tensor> y = (*model)->Call(std::vector<Tensor>{*x, *x});
  ASSERT_TRUE(y.ok()) << y.status();
  ASSERT_EQ(y->shape(), TensorShape({3, 2}));
  const Tensor host = tfd::test::ToHost(*y);
  for (int i = 0; i < 6; ++i) EXPECT_EQ(host.data<float>()[i], 0.0f);  // proj(a) - proj(a).
}

absl::Status FromMlpWith(absl::string_view from, absl::string_view to) {
  std::string json = absl::StrReplaceAll(ReadTestdata("fashion_mnist_mlp.json"), {{from, to}});
  EXPECT_NE(json, ReadTestdata("fashion_mnist_mlp.json")) << "nothing replaced: " << from;
  return ModelFromJson(json).status();
}

TEST(ModelFromJsonTest, UnknownLayerClassNamesIt) {
  absl::Status s = FromMlpWith("\"class_name\": \"Flatten\"", "\"class_name\": \"LSTM\"");
  EXPECT_EQ(s.code(), absl::StatusCode::kUnimplemented);
  EXPECT_THAT(s.message(), HasSubstr("unknown layer class \"LSTM\""));
  EXPECT_THAT(s.message(), HasSubstr("Dense"));
}

TEST(ModelFromJsonTest, UnsupportedOptionsNameLayerAndKey) {
  absl::Status s = FromMlpWith("\"units\": 128,", "\"units\": 128, \"lora_rank\": 4,");
  EXPECT_EQ(s.code(), absl::StatusCode::kUnimplemented);
  EXPECT_THAT(s.message(), HasSubstr("Dense 'dense': options not supported by tfd: lora_rank"));

  s = FromMlpWith("\"kernel_regularizer\": null",
                  "\"kernel_regularizer\": {\"class_name\": \"L2\", \"config\": {\"l2\": 0.01}}");
  EXPECT_EQ(s.code(), absl::StatusCode::kUnimplemented);
  EXPECT_THAT(s.message(), HasSubstr("\"kernel_regularizer\""));

  s = FromMlpWith("\"channels_last\"", "\"channels_first\"");
  EXPECT_EQ(s.code(), absl::StatusCode::kUnimplemented);
  EXPECT_THAT(s.message(), HasSubstr("Flatten 'flatten': \"data_format\" = channels_first"));

  s = FromMlpWith("\"GlorotUniform\"", "\"Orthogonal\"");
  EXPECT_EQ(s.code(), absl::StatusCode::kUnimplemented);
  EXPECT_THAT(s.message(), HasSubstr("unknown initializer \"Orthogonal\""));
}

TEST(ModelFromJsonTest, MixedPrecisionPolicyIsKept) {
  std::string json = absl::StrReplaceAll(
      ReadTestdata("fashion_mnist_mlp.json"),
      {{"\"dtype\": \"float32\", \"units\": 128",
        "\"dtype\": {\"module\": \"keras.mixed_precision\", \"class_name\": \"Policy\", "
        "\"config\": {\"name\": \"mixed_float16\"}, \"registered_name\": null}, \"units\": 128"}});
  absl::StatusOr<std::shared_ptr<Model>> model = ModelFromJson(json);
  ASSERT_TRUE(model.ok()) << model.status();
  absl::StatusOr<std::shared_ptr<Layer>> dense = (*model)->GetLayer("dense");
  ASSERT_TRUE(dense.ok());
  EXPECT_EQ((*dense)->dtype_policy().name(), "mixed_float16");
  EXPECT_EQ((*dense)->compute_dtype(), DT_HALF);
  EXPECT_EQ((*dense)->dtype(), DT_FLOAT);

  absl::Status s = FromMlpWith("\"dtype\": \"float32\", \"units\": 128",
                               "\"dtype\": {\"class_name\": \"Policy\", \"config\": "
                               "{\"name\": \"mixed_int8\"}}, \"units\": 128");
  EXPECT_EQ(s.code(), absl::StatusCode::kInvalidArgument);
  EXPECT_THAT(s.message(), HasSubstr("Dense 'dense'"));
}

// Keras layers take a policy name where they take a dtype
// (Dense(128, dtype="mixed_bfloat16")), and Keras 3 writes the policy object
// as "DTypePolicy"; other policy classes are UNIMPLEMENTED, naming them.
TEST(ModelFromJsonTest, PolicyNamesAndKeras3PolicyObjects) {
  const std::string mlp = ReadTestdata("fashion_mnist_mlp.json");
  const std::string hidden = "\"dtype\": \"float32\", \"units\": 128";
  for (const auto& [dtype, policy] : std::vector<std::pair<std::string, std::string>>{
           {"\"mixed_bfloat16\"", "mixed_bfloat16"},
           {"{\"module\": \"keras\", \"class_name\": \"DTypePolicy\", \"config\": "
            "{\"name\": \"mixed_float16\"}, \"registered_name\": null}",
            "mixed_float16"},
           {"\"float16\"", "float16"}}) {
    SCOPED_TRACE(dtype);
    absl::StatusOr<std::shared_ptr<Model>> model =
        ModelFromJson(absl::StrReplaceAll(mlp, {{hidden, "\"dtype\": " + dtype + ", \"units\": 128"}}));
    ASSERT_TRUE(model.ok()) << model.status();
    absl::StatusOr<std::shared_ptr<Layer>> dense = (*model)->GetLayer("dense");
    ASSERT_TRUE(dense.ok());
    EXPECT_EQ((*dense)->dtype_policy().name(), policy);
  }
  absl::Status s = FromMlpWith(hidden, "\"dtype\": \"mixed_float8\", \"units\": 128");
  EXPECT_EQ(s.code(), absl::StatusCode::kInvalidArgument);
  EXPECT_THAT(s.message(), HasSubstr("Valid policies include 'mixed_float16', 'mixed_bfloat16'"));
  s = FromMlpWith(hidden, "\"dtype\": \"float12\", \"units\": 128");
  EXPECT_EQ(s.code(), absl::StatusCode::kUnimplemented);
  EXPECT_THAT(s.message(), HasSubstr("a policy name, 'mixed_float16' or 'mixed_bfloat16'"));
  s = FromMlpWith(hidden,
                  "\"dtype\": {\"class_name\": \"QuantizedDTypePolicy\", \"config\": "
                  "{\"name\": \"int8_from_float32\"}}, \"units\": 128");
  EXPECT_EQ(s.code(), absl::StatusCode::kUnimplemented);
  EXPECT_THAT(s.message(), HasSubstr("QuantizedDTypePolicy"));
}

TEST(ModelFromJsonTest, MalformedValuesAreInvalidArguments) {
  absl::Status s = FromMlpWith("\"units\": 128", "\"units\": \"many\"");
  EXPECT_EQ(s.code(), absl::StatusCode::kInvalidArgument);
  EXPECT_THAT(s.message(), HasSubstr("\"units\" must be an integer, got a string"));

  s = FromMlpWith("\"units\": 128", "\"units\": 1.5");
  EXPECT_EQ(s.code(), absl::StatusCode::kInvalidArgument);

  s = FromMlpWith("\"activation\": \"relu\"", "\"activation\": \"no_such_fn\"");
  EXPECT_FALSE(s.ok());
  EXPECT_THAT(s.message(), HasSubstr("no_such_fn"));
}

TEST(ModelFromJsonTest, NotAModel) {
  EXPECT_EQ(ModelFromJson("").status().code(), absl::StatusCode::kInvalidArgument);
  EXPECT_EQ(ModelFromJson("{\"class_name\": \"Sequential\"").status().code(),
            absl::StatusCode::kInvalidArgument);
  EXPECT_EQ(ModelFromJson("[1, 2]").status().code(), absl::StatusCode::kInvalidArgument);
  EXPECT_EQ(ModelFromJson(R"({"class_name": "Sequential", "config": {"name": "s"}})")
                .status()
                .code(),
            absl::StatusCode::kInvalidArgument);
  absl::Status s = ModelFromJson(R"({"class_name": "MyModel", "config": {}})").status();
  EXPECT_EQ(s.code(), absl::StatusCode::kUnimplemented);
  EXPECT_THAT(s.message(), HasSubstr("MyModel"));
  s = ModelFromJson(R"({"class_name": "Sequential", "config": {"layers": [
        {"class_name": "Sequential", "config": {"layers": []}}]}})")
          .status();
  EXPECT_EQ(s.code(), absl::StatusCode::kUnimplemented);
}

TEST(ModelFromJsonTest, FunctionalGraphErrors) {
  const std::string base = R"({"class_name": "Functional", "config": {"name": "f",
    "layers": [
      {"class_name": "InputLayer", "name": "x", "inbound_nodes": [],
       "config": {"batch_input_shape": [null, 4], "name": "x"}},
      {"class_name": "Dense", "name": "d", "config": {"name": "d", "units": 2},
       "inbound_nodes": [[["SOURCE", 0, 0, {}]]]}],
    "input_layers": [["x", 0, 0]], "output_layers": [["d", 0, 0]]}})";
  absl::Status s = ModelFromJson(absl::StrReplaceAll(base, {{"SOURCE", "nowhere"}})).status();
  EXPECT_EQ(s.code(), absl::StatusCode::kInvalidArgument);
  EXPECT_THAT(s.message(), HasSubstr("needs a tensor that no layer produces"));
  s = ModelFromJson(absl::StrReplaceAll(base, {{"\"SOURCE\", 0, 0, {}", "\"x\", 0, 0, {\"training\": true}"}}))
          .status();
  EXPECT_EQ(s.code(), absl::StatusCode::kUnimplemented);
  EXPECT_THAT(s.message(), HasSubstr("call arguments"));
  s = ModelFromJson(absl::StrReplaceAll(base, {{"SOURCE", "x"}, {"[[\"d\", 0, 0]]", "[[\"d\", 3, 0]]"}}))
          .status();
  EXPECT_EQ(s.code(), absl::StatusCode::kInvalidArgument);
  EXPECT_THAT(s.message(), HasSubstr("output_layers names [\"d\", 3, 0]"));
  EXPECT_TRUE(ModelFromJson(absl::StrReplaceAll(base, {{"SOURCE", "x"}})).ok());
}

}  // namespace
}  // namespace nn
}  // namespace tfd
