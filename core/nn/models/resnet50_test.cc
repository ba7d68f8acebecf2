// ResNet50 against tf-keras 2.21's keras.applications.ResNet50(weights=
// None): its summary byte for byte (testdata/, made by
// make_resnet50_summary.py: every layer's name, class, output shape,
// parameters and inputs), parameter and weight counts, output shapes
// (224x224 with the classifier, 32x32 without), Keras's argument errors;
// and one SGD training step on the CPU at 64x64, batch 2, whose gradients
// reach every trainable weight and whose second step lowers the loss.
#include "core/nn/models/resnet50.h"

#include <cmath>

#include "core/autodiff/gradient_tape.h"
#include "core/io/file.h"
#include "core/kernels/random_seed.h"
#include "core/nn/layer_testutil.h"
#include "core/nn/losses.h"
#include "core/nn/losses_utils.h"
#include "core/nn/sgd.h"
#include "gtest/gtest.h"

namespace tfd {
namespace nn {
namespace {

using test::ExpectError;
using test::Values;

// The output shape of the layer named `name` in `model`'s graph.
Shape OutputShapeOf(const Functional& model, const std::string& name) {
  for (const auto& layer : model.layers()) {
    if (layer->name() == name) return layer->inbound_nodes().at(0)->output_shape;
  }
  ADD_FAILURE() << "no layer " << name;
  return {};
}

TEST(ResNet50Test, CountsNamesAndShapesAsTfKeras) {
  ClearSession();
  ASSERT_OK_AND_ASSIGN(std::shared_ptr<Functional> model, ResNet50());
  EXPECT_EQ(model->name(), "resnet50");
  // tf-keras: count_params() 25636712, 25583592 of them trainable; 320
  // weights, 214 trainable; 177 layers with the InputLayer.
  EXPECT_EQ(*model->CountParams(), 25'636'712);
  EXPECT_EQ(CountParams(model->trainable_weights()), 25'583'592);
  EXPECT_EQ(model->weights().size(), 320u);
  EXPECT_EQ(model->trainable_weights().size(), 214u);
  const auto layers = model->layers();
  ASSERT_EQ(layers.size(), 177u);
  // model.layers[:20] of tf-keras: a block's shortcut follows its main
  // branch's first two convolutions.
  const std::vector<std::string> first = {
      "input_1",           "conv1_pad",           "conv1_conv",          "conv1_bn",
      "conv1_relu",        "pool1_pad",           "pool1_pool",          "conv2_block1_1_conv",
      "conv2_block1_1_bn", "conv2_block1_1_relu", "conv2_block1_2_conv", "conv2_block1_2_bn",
      "conv2_block1_2_relu", "conv2_block1_0_conv", "conv2_block1_3_conv", "conv2_block1_0_bn",
      "conv2_block1_3_bn", "conv2_block1_add",    "conv2_block1_out",    "conv2_block2_1_conv"};
  for (size_t i = 0; i < first.size(); ++i) EXPECT_EQ(layers[i]->name(), first[i]) << i;
  EXPECT_EQ(layers.back()->name(), "predictions");
  EXPECT_EQ(model->weights().front()->name(), "conv1_conv/kernel");

  EXPECT_EQ(OutputShapeOf(*model, "conv1_pad"), (Shape{kNone, 230, 230, 3}));
  EXPECT_EQ(OutputShapeOf(*model, "conv1_conv"), (Shape{kNone, 112, 112, 64}));
  EXPECT_EQ(OutputShapeOf(*model, "pool1_pad"), (Shape{kNone, 114, 114, 64}));
  EXPECT_EQ(OutputShapeOf(*model, "pool1_pool"), (Shape{kNone, 56, 56, 64}));
  EXPECT_EQ(OutputShapeOf(*model, "conv2_block3_out"), (Shape{kNone, 56, 56, 256}));
  EXPECT_EQ(OutputShapeOf(*model, "conv3_block4_out"), (Shape{kNone, 28, 28, 512}));
  EXPECT_EQ(OutputShapeOf(*model, "conv4_block6_out"), (Shape{kNone, 14, 14, 1024}));
  EXPECT_EQ(OutputShapeOf(*model, "conv5_block3_out"), (Shape{kNone, 7, 7, 2048}));
  EXPECT_EQ(OutputShapeOf(*model, "avg_pool"), (Shape{kNone, 2048}));
  EXPECT_EQ(model->outputs()[0].shape(), (Shape{kNone, 1000}));
}

TEST(ResNet50Test, SummaryIsTfKeras) {
  ClearSession();
  ASSERT_OK_AND_ASSIGN(std::shared_ptr<Functional> model, ResNet50());
  ASSERT_OK_AND_ASSIGN(const std::string expected,
                       io::ReadFileToString("core/nn/models/testdata/resnet50_summary.txt"));
  ASSERT_OK_AND_ASSIGN(const std::string summary, model->Summary());
  EXPECT_EQ(summary, expected);
}

TEST(ResNet50Test, WithoutTopAsTfKeras) {
  ClearSession();
  ResNet50Options options;
  options.include_top = false;
  options.input_shape = Shape{32, 32, 3};
  options.pooling = "avg";
  ASSERT_OK_AND_ASSIGN(std::shared_ptr<Functional> model, ResNet50(options));
  EXPECT_EQ(*model->CountParams(), 23'587'712);
  EXPECT_EQ(model->outputs()[0].shape(), (Shape{kNone, 2048}));
  EXPECT_EQ(OutputShapeOf(*model, "conv2_block1_out"), (Shape{kNone, 8, 8, 256}));
  EXPECT_EQ(OutputShapeOf(*model, "conv3_block1_out"), (Shape{kNone, 4, 4, 512}));
  EXPECT_EQ(OutputShapeOf(*model, "conv4_block1_out"), (Shape{kNone, 2, 2, 1024}));
  EXPECT_EQ(OutputShapeOf(*model, "conv5_block1_out"), (Shape{kNone, 1, 1, 2048}));

  ClearSession();
  options.pooling = "";
  options.input_shape.reset();
  ASSERT_OK_AND_ASSIGN(model, ResNet50(options));
  EXPECT_EQ(model->outputs()[0].shape(), (Shape{kNone, kNone, kNone, 2048}));
}

TEST(ResNet50Test, ArgumentErrorsAsKeras) {
  const auto kInvalid = absl::StatusCode::kInvalidArgument;
  ResNet50Options options;
  options.input_shape = Shape{16, 64, 3};
  ExpectError(ResNet50(options).status(), kInvalid,
              {"Input size must be at least 32x32; Received: input_shape=(16, 64, 3)"});
  options.input_shape = Shape{64, 64};
  ExpectError(ResNet50(options).status(), kInvalid,
              {"`input_shape` must be a tuple of three integers."});
  options.input_shape = Shape{kNone, kNone, 3};
  ExpectError(ResNet50(options).status(), kInvalid,
              {"If `include_top` is True, you should specify a static `input_shape`. Received: "
               "input_shape=(None, None, 3)"});
  options = ResNet50Options();
  options.include_top = false;
  options.pooling = "mean";
  ExpectError(ResNet50(options).status(), kInvalid, {"pooling", "\"mean\""});
  options = ResNet50Options();
  options.input_shape = Shape{32, 32, 3};
  options.classes = 0;
  ExpectError(ResNet50(options).status(), kInvalid, {"predictions"});
}

// The loss of one forward pass in training mode and, when `sgd` is set,
// one update of every trainable weight.
absl::StatusOr<double> TrainStep(Functional& model, const Tensor& x, const Tensor& y,
                                 Optimizer* sgd, std::vector<Tensor>* grads) {
  SparseCategoricalCrossentropy::Options loss_options;
  loss_options.from_logits = true;
  loss_options.reduction = Reduction::kNone;
  SparseCategoricalCrossentropy loss_fn(loss_options);
  GradientTape tape;
  TFD_ASSIGN_OR_RETURN(Tensor logits, model.Call(x, /*training=*/true));
  TFD_ASSIGN_OR_RETURN(Tensor per_example, loss_fn.Call(y, logits));
  TFD_ASSIGN_OR_RETURN(Tensor loss, ComputeAverageLoss(per_example, x.dim(0)));
  if (sgd != nullptr) {
    TFD_ASSIGN_OR_RETURN(*grads,
                         tape.Gradient(loss, LocalVariables(model.TrainableVariables())));
    TFD_RETURN_IF_ERROR(sgd->ApplyGradients(*grads, model.TrainableVariables()));
  }
  return Values(loss)[0];
}

TEST(ResNet50Test, OneTrainingStepOnTheCpu) {
  ClearSession();
  SetRandomSeed(7);
  ResNet50Options options;
  options.input_shape = Shape{64, 64, 3};
  options.classes = 10;
  options.classifier_activation = "";
  ASSERT_OK_AND_ASSIGN(std::shared_ptr<Functional> model, ResNet50(options));
  const Tensor x = test::RandomTensor(DT_FLOAT, {2, 64, 64, 3}, 3, 0.0, 1.0);
  ASSERT_OK_AND_ASSIGN(const Tensor y, Tensor::FromVector(std::vector<int32_t>{3, 8}, {2}));
  SGDOptions sgd_options;
  sgd_options.learning_rate = 0.01f;
  ASSERT_OK_AND_ASSIGN(std::unique_ptr<SGD> sgd, SGD::Create(sgd_options));

  const std::vector<double> kernel_before = Values(model->weights().front()->Read());
  const std::vector<double> mean_before = Values(model->non_trainable_weights().front()->Read());
  std::vector<Tensor> grads;
  ASSERT_OK_AND_ASSIGN(const double loss, TrainStep(*model, x, y, sgd.get(), &grads));
  EXPECT_TRUE(std::isfinite(loss)) << loss;
  ASSERT_EQ(grads.size(), 214u);
  for (size_t i = 0; i < grads.size(); ++i) {
    ASSERT_TRUE(grads[i].defined()) << model->trainable_weights()[i]->name();
    double norm = 0;
    for (double g : Values(grads[i])) norm += g * g;
    EXPECT_TRUE(std::isfinite(norm)) << model->trainable_weights()[i]->name();
  }
  EXPECT_NE(Values(model->weights().front()->Read()), kernel_before);
  // conv1_bn/moving_mean moved towards the batch mean.
  EXPECT_EQ(model->non_trainable_weights().front()->name(), "conv1_bn/moving_mean");
  EXPECT_NE(Values(model->non_trainable_weights().front()->Read()), mean_before);
  ASSERT_OK_AND_ASSIGN(const double after, TrainStep(*model, x, y, nullptr, nullptr));
  EXPECT_LT(after, loss);
}

}  // namespace
}  // namespace nn
}  // namespace tfd
