// Mixed precision through the C API (tfd/mixed_precision.h): the global
// policy as Keras's set_global_policy (read when layers are made, thread-
// safe), a layer's own "dtype" option, policies in Keras JSON, a
// mixed_bfloat16 model that keeps float32 variables, computes in bfloat16
// and trains, and a mixed_float16 model whose compile adds Keras's dynamic
// loss scale: 2^15 at first, halved by a non-finite step (which is
// skipped), doubled after 2000 finite steps, and kept by checkpoints.
#include <cmath>
#include <cstdlib>
#include <cstring>
#include <string>
#include <thread>
#include <vector>

#include "c_api/c_api_testutil.h"
#include "c_api/internal/tfd_structs.h"
#include "gtest/gtest.h"
#include "tfd/c_api.h"

namespace {

using tfd::capi::testing::FloatTensor;
using tfd::capi::testing::MakeBatch;
using tfd::capi::testing::Status;
using tfd::capi::testing::Values;

// Restores the float32 default when a test ends, whatever it set.
class MixedPrecisionTest : public ::testing::Test {
 protected:
  void TearDown() override {
    Status s;
    TFD_SetGlobalPolicy("float32", s);
    EXPECT_TF_OK(s);
  }
};

// The layer named `name` of the model.
std::shared_ptr<tfd::nn::Layer> LayerNamed(TFD_Model* m, const std::string& name) {
  for (const auto& layer : m->model->layers()) {
    if (layer->name() == name) return layer;
  }
  ADD_FAILURE() << "no layer " << name;
  return nullptr;
}

TFD_Options* NameAndDtype(const char* name, const char* dtype, Status& s) {
  TFD_Options* o = TFD_NewOptions();
  TFD_OptionsSetString(o, "name", name, s);
  if (dtype != nullptr) TFD_OptionsSetString(o, "dtype", dtype, s);
  return o;
}

// 4 -> Dense(16, relu) "hidden" -> Dense(3) "logits" [-> a float32 linear
// Activation "out", Keras's advice for mixed models].
TFD_Model* Mlp(bool float32_output, Status& s) {
  TFD_Model* m = TFD_NewSequential(nullptr, nullptr, s);
  const int64_t features = 4;
  TFD_AddInput(m, &features, 1, TF_FLOAT, s);
  TFD_Options* o = NameAndDtype("hidden", nullptr, s);
  TFD_AddDense(m, 16, "relu", o, s);
  TFD_DeleteOptions(o);
  o = NameAndDtype("logits", nullptr, s);
  TFD_AddDense(m, 3, nullptr, o, s);
  TFD_DeleteOptions(o);
  if (float32_output) {
    o = NameAndDtype("out", "float32", s);
    TFD_AddActivation(m, "linear", o, s);
    TFD_DeleteOptions(o);
  }
  return m;
}

void CompilePlainSgd(TFD_Model* m, Status& s) {
  TFD_Options* opt = TFD_NewOptions();
  TFD_OptionsSetDouble(opt, "learning_rate", 0.1, s);
  TFD_Options* loss = TFD_NewOptions();
  TFD_OptionsSetBool(loss, "from_logits", 1, s);
  TFD_ModelCompile(m, "sgd", opt, "sparse_categorical_crossentropy", loss, nullptr, 0, s);
  TFD_DeleteOptions(opt);
  TFD_DeleteOptions(loss);
}

// The values of every weight, in order.
std::vector<std::vector<float>> WeightValues(TFD_Model* m) {
  std::vector<std::vector<float>> out;
  for (const auto& w : m->model->weights()) out.push_back(Values(w->component(0).Peek()));
  return out;
}

TEST_F(MixedPrecisionTest, GlobalPolicyIsReadWhenLayersAreMade) {
  Status s;
  EXPECT_STREQ(TFD_GlobalPolicy(), "float32");
  TFD_SetGlobalPolicy("mixed_bfloat16", s);
  ASSERT_TF_OK(s);
  EXPECT_STREQ(TFD_GlobalPolicy(), "mixed_bfloat16");
  TFD_Model* m = Mlp(/*float32_output=*/true, s);
  ASSERT_TF_OK(s);
  // Changing the policy now leaves the model as it was made.
  TFD_SetGlobalPolicy("float32", s);
  ASSERT_TF_OK(s);
  EXPECT_STREQ(TFD_ModelDtypePolicy(m, s), "mixed_bfloat16");
  EXPECT_EQ(LayerNamed(m, "hidden")->dtype_policy().name(), "mixed_bfloat16");
  EXPECT_EQ(LayerNamed(m, "logits")->compute_dtype(), tfd::DT_BFLOAT16);
  EXPECT_EQ(LayerNamed(m, "out")->dtype_policy().name(), "float32");
  TFD_DeleteModel(m);
  // A new model is float32 again.
  m = Mlp(false, s);
  ASSERT_TF_OK(s);
  EXPECT_STREQ(TFD_ModelDtypePolicy(m, s), "float32");
  EXPECT_EQ(LayerNamed(m, "hidden")->compute_dtype(), tfd::DT_FLOAT);
  TFD_DeleteModel(m);
}

TEST_F(MixedPrecisionTest, UnknownPoliciesNameTheValidOnes) {
  Status s;
  TFD_SetGlobalPolicy("mixed_float16", s);
  ASSERT_TF_OK(s);
  TFD_SetGlobalPolicy("mixed_int8", s);
  EXPECT_EQ(s.code(), TF_INVALID_ARGUMENT);
  EXPECT_EQ(s.message(),
            "TFD_SetGlobalPolicy: Cannot convert value mixed_int8 to a mixed precision Policy. "
            "Valid policies include 'mixed_float16', 'mixed_bfloat16', and the name of any "
            "dtype such as 'float32'.");
  EXPECT_STREQ(TFD_GlobalPolicy(), "mixed_float16");  // Unchanged.
  TFD_SetGlobalPolicy("int32", s);
  EXPECT_EQ(s.code(), TF_INVALID_ARGUMENT);
  EXPECT_NE(s.message().find("floating-point policies"), std::string::npos) << s.message();
  // Plain dtype names are policies too, as in Keras.
  TFD_SetGlobalPolicy("float16", s);
  EXPECT_TF_OK(s);
  EXPECT_STREQ(TFD_GlobalPolicy(), "float16");
  TFD_SetGlobalPolicy(nullptr, s);  // Keras's None.
  EXPECT_TF_OK(s);
  EXPECT_STREQ(TFD_GlobalPolicy(), "float32");
}

// Keras's policy is process-wide: every thread sees one of the values set,
// whole, and the names stay valid after later changes.
TEST_F(MixedPrecisionTest, GlobalPolicyIsThreadSafe) {
  const char* first = nullptr;
  {
    Status s;
    TFD_SetGlobalPolicy("mixed_float16", s);
    first = TFD_GlobalPolicy();
  }
  std::vector<std::thread> threads;
  std::vector<int> bad(4, 0);
  for (int t = 0; t < 4; ++t) {
    threads.emplace_back([t, &bad] {
      Status s;
      for (int i = 0; i < 500; ++i) {
        TFD_SetGlobalPolicy((i + t) % 2 == 0 ? "mixed_bfloat16" : "mixed_float16", s);
        const std::string seen = TFD_GlobalPolicy();
        if (TF_GetCode(s) != TF_OK || (seen != "mixed_bfloat16" && seen != "mixed_float16")) {
          ++bad[t];
        }
      }
    });
  }
  for (auto& thread : threads) thread.join();
  for (int t = 0; t < 4; ++t) EXPECT_EQ(bad[t], 0) << "thread " << t;
  EXPECT_STREQ(first, "mixed_float16");
}

// Keras's Dense(3, dtype="mixed_float16"): the option overrides the global
// policy for that layer only; JSON layers take tf-keras's "Policy" object
// and Keras 3's "DTypePolicy".
TEST_F(MixedPrecisionTest, LayerDtypeOptionAndJsonPolicies) {
  Status s;
  TFD_Model* m = TFD_NewSequential(nullptr, nullptr, s);
  const int64_t features = 4;
  TFD_AddInput(m, &features, 1, TF_FLOAT, s);
  TFD_Options* o = NameAndDtype("half", "mixed_float16", s);
  TFD_AddDense(m, 8, "relu", o, s);
  TFD_DeleteOptions(o);
  TFD_AddLayerFromKerasJson(
      m,
      R"({"class_name": "Dense", "config": {"name": "policy", "units": 8, "dtype":
          {"module": "keras.mixed_precision", "class_name": "Policy",
           "config": {"name": "mixed_bfloat16"}, "registered_name": null}}})",
      s);
  TFD_AddLayerFromKerasJson(
      m,
      R"({"class_name": "Dense", "config": {"name": "dtype_policy", "units": 3, "dtype":
          {"module": "keras", "class_name": "DTypePolicy",
           "config": {"name": "mixed_float16"}, "registered_name": null}}})",
      s);
  o = NameAndDtype("plain", nullptr, s);
  TFD_AddDense(m, 3, nullptr, o, s);
  TFD_DeleteOptions(o);
  ASSERT_TF_OK(s);
  EXPECT_EQ(LayerNamed(m, "half")->dtype_policy().name(), "mixed_float16");
  EXPECT_EQ(LayerNamed(m, "half")->compute_dtype(), tfd::DT_HALF);
  EXPECT_EQ(LayerNamed(m, "half")->dtype(), tfd::DT_FLOAT);
  EXPECT_EQ(LayerNamed(m, "policy")->dtype_policy().name(), "mixed_bfloat16");
  EXPECT_EQ(LayerNamed(m, "dtype_policy")->dtype_policy().name(), "mixed_float16");
  EXPECT_EQ(LayerNamed(m, "plain")->dtype_policy().name(), "float32");
  // A policy class tfd does not have.
  TFD_AddLayerFromKerasJson(
      m,
      R"({"class_name": "Dense", "config": {"units": 3, "dtype": {"class_name":
          "QuantizedDTypePolicy", "config": {"name": "int8_from_float32"}}}})",
      s);
  EXPECT_EQ(s.code(), TF_UNIMPLEMENTED);
  EXPECT_NE(s.message().find("QuantizedDTypePolicy"), std::string::npos) << s.message();
  TFD_DeleteModel(m);
}

// A mixed_bfloat16 model through C: float32 variables, bfloat16 outputs
// (TFD_ModelPredict's dtype), and training lowers the loss; the last
// float32 layer makes the loss float32, as Keras advises.
TEST_F(MixedPrecisionTest, MixedBfloat16KeepsFloat32VariablesAndTrains) {
  Status s;
  TFD_SetGlobalPolicy("mixed_bfloat16", s);
  ASSERT_TF_OK(s);
  TFD_Model* all_bf16 = Mlp(/*float32_output=*/false, s);
  TFD_Model* m = Mlp(/*float32_output=*/true, s);
  ASSERT_TF_OK(s);
  TF_Tensor *x, *y;
  MakeBatch(32, 0, &x, &y);
  TF_Tensor* activations = TFD_ModelPredict(all_bf16, x, 0, s);
  ASSERT_TF_OK(s);
  EXPECT_EQ(TF_TensorType(activations), TF_BFLOAT16);
  EXPECT_EQ(TF_Dim(activations, 1), 3);
  TF_DeleteTensor(activations);
  TF_Tensor* out = TFD_ModelPredict(m, x, 0, s);
  ASSERT_TF_OK(s);
  EXPECT_EQ(TF_TensorType(out), TF_FLOAT);
  TF_DeleteTensor(out);
  ASSERT_EQ(m->model->weights().size(), 4u);
  for (const auto& w : m->model->weights()) {
    EXPECT_EQ(w->dtype(), tfd::DT_FLOAT) << w->name();
  }

  CompilePlainSgd(m, s);
  ASSERT_TF_OK(s);
  // bfloat16 needs no loss scaling.
  TFD_ModelLossScale(m, s);
  EXPECT_EQ(s.code(), TF_FAILED_PRECONDITION);
  TF_SetStatus(s, TF_OK, "");
  std::vector<float> losses;
  for (int step = 0; step < 60; ++step) {
    losses.push_back(TFD_ModelTrainStep(m, x, y, s));
    ASSERT_TF_OK(s);
    ASSERT_TRUE(std::isfinite(losses.back())) << step;
  }
  EXPECT_LT(losses.back(), 0.7f * losses.front())
      << "first " << losses.front() << ", last " << losses.back();
  for (const auto& w : m->model->weights()) EXPECT_EQ(w->dtype(), tfd::DT_FLOAT) << w->name();
  TF_DeleteTensor(x);
  TF_DeleteTensor(y);
  TFD_DeleteModel(m);
  TFD_DeleteModel(all_bf16);
}

// Keras's dynamic loss scale through TFD_ModelTrainStep: 2^15 at first;
// a batch whose float16 activations overflow gives non-finite gradients,
// so the step is skipped (weights unchanged) and the scale halves; 2000
// finite steps double it again.
TEST_F(MixedPrecisionTest, MixedFloat16CompileAddsDynamicLossScale) {
  Status s;
  TFD_SetGlobalPolicy("mixed_float16", s);
  ASSERT_TF_OK(s);
  TFD_Model* m = Mlp(/*float32_output=*/true, s);
  ASSERT_TF_OK(s);
  EXPECT_STREQ(TFD_ModelDtypePolicy(m, s), "mixed_float16");
  EXPECT_EQ(LayerNamed(m, "hidden")->compute_dtype(), tfd::DT_HALF);
  CompilePlainSgd(m, s);
  ASSERT_TF_OK(s);
  EXPECT_EQ(TFD_ModelLossScale(m, s), 32768.0f);
  EXPECT_EQ(TFD_ModelLossScaleGoodSteps(m, s), 0);
  ASSERT_TF_OK(s);

  TF_Tensor *x, *y;
  MakeBatch(8, 1, &x, &y);
  const float first = TFD_ModelTrainStep(m, x, y, s);
  ASSERT_TF_OK(s);
  EXPECT_TRUE(std::isfinite(first));
  EXPECT_EQ(TFD_ModelLossScale(m, s), 32768.0f);
  EXPECT_EQ(TFD_ModelLossScaleGoodSteps(m, s), 1);

  // 1e6 is past float16's largest value (65504): Inf activations.
  std::vector<float> huge(8 * 4, 1e6f);
  TF_Tensor* overflow = FloatTensor({8, 4}, huge);
  const std::vector<std::vector<float>> before = WeightValues(m);
  TFD_ModelTrainStep(m, overflow, y, s);
  ASSERT_TF_OK(s);
  EXPECT_EQ(TFD_ModelLossScale(m, s), 16384.0f);
  EXPECT_EQ(TFD_ModelLossScaleGoodSteps(m, s), 0);
  EXPECT_EQ(WeightValues(m), before);  // The step was skipped.
  TF_DeleteTensor(overflow);

  // Fit shares the optimizer and its scale state: 2 batches of 4.
  TF_Tensor* pair[2] = {x, y};
  TFD_Dataset* examples = TFD_NewDatasetFromTensors(pair, 2, s);
  TFD_Dataset* batches = TFD_DatasetBatch(examples, 4, 0, s);
  TFD_ModelFit(m, batches, 1, nullptr, nullptr, s);
  ASSERT_TF_OK(s);
  EXPECT_EQ(TFD_ModelLossScaleGoodSteps(m, s), 2);
  TFD_DeleteDataset(batches);
  TFD_DeleteDataset(examples);

  for (int step = 2; step < 1999; ++step) {
    TFD_ModelTrainStep(m, x, y, s);
    ASSERT_TF_OK(s);
  }
  EXPECT_EQ(TFD_ModelLossScale(m, s), 16384.0f);
  EXPECT_EQ(TFD_ModelLossScaleGoodSteps(m, s), 1999);
  TFD_ModelTrainStep(m, x, y, s);
  ASSERT_TF_OK(s);
  EXPECT_EQ(TFD_ModelLossScale(m, s), 32768.0f);
  EXPECT_EQ(TFD_ModelLossScaleGoodSteps(m, s), 0);
  TF_DeleteTensor(x);
  TF_DeleteTensor(y);
  TFD_DeleteModel(m);
}

// Under MirroredStrategy(2) every replica sees the same summed gradients,
// so all skip the overflowing step together and the copies of the scale
// and of the weights stay identical.
TEST_F(MixedPrecisionTest, MirroredReplicasShareTheLossScale) {
  Status s;
  TFD_Strategy* mirrored = tfd::capi::testing::Mirrored(2, s);
  ASSERT_TF_OK(s);
  TFD_SetGlobalPolicy("mixed_float16", s);
  TFD_Model* m = TFD_NewSequential(mirrored, nullptr, s);
  TFD_DeleteStrategy(mirrored);
  const int64_t features = 4;
  TFD_AddInput(m, &features, 1, TF_FLOAT, s);
  TFD_AddDense(m, 8, "relu", nullptr, s);
  TFD_Options* o = NameAndDtype("out", "float32", s);
  TFD_AddDense(m, 3, nullptr, o, s);
  TFD_DeleteOptions(o);
  CompilePlainSgd(m, s);
  ASSERT_TF_OK(s);
  TF_Tensor *x, *y;
  MakeBatch(8, 2, &x, &y);
  TFD_ModelTrainStep(m, x, y, s);
  ASSERT_TF_OK(s);
  // Only the second replica's half of the batch overflows: the summed
  // gradients are non-finite, so both replicas skip the step.
  std::vector<float> half_huge(8 * 4, 0.5f);
  for (int i = 16; i < 32; ++i) half_huge[i] = 1e6f;
  TF_Tensor* overflow = FloatTensor({8, 4}, half_huge);
  const std::vector<std::vector<float>> before = WeightValues(m);
  TFD_ModelTrainStep(m, overflow, y, s);
  ASSERT_TF_OK(s);
  EXPECT_EQ(TFD_ModelLossScale(m, s), 16384.0f);
  EXPECT_EQ(TFD_ModelLossScaleGoodSteps(m, s), 0);
  EXPECT_EQ(WeightValues(m), before);
  for (const auto& w : m->model->weights()) {
    ASSERT_EQ(w->num_components(), 2);
    EXPECT_EQ(Values(w->component(0).Peek()), Values(w->component(1).Peek())) << w->name();
  }
  TF_DeleteTensor(overflow);
  TF_DeleteTensor(x);
  TF_DeleteTensor(y);
  TFD_DeleteModel(m);
}

// TFD_ModelSaveCheckpoint keeps the loss scale and its good-steps count
// (Keras's optimizer/loss_scale/ keys), and a new model restored from it
// resumes with them: the same scale, the same count, the same next step.
TEST_F(MixedPrecisionTest, CheckpointKeepsTheLossScale) {
  Status s;
  TFD_SetGlobalPolicy("mixed_float16", s);
  ASSERT_TF_OK(s);
  TFD_Model* trained = Mlp(/*float32_output=*/true, s);
  CompilePlainSgd(trained, s);
  ASSERT_TF_OK(s);
  TF_Tensor *x, *y;
  MakeBatch(8, 3, &x, &y);
  TF_Tensor* overflow = FloatTensor({8, 4}, std::vector<float>(8 * 4, 1e6f));
  // Skipped (halves the scale), then 3 finite steps.
  TFD_ModelTrainStep(trained, overflow, y, s);
  for (int step = 0; step < 3; ++step) TFD_ModelTrainStep(trained, x, y, s);
  ASSERT_TF_OK(s);
  ASSERT_EQ(TFD_ModelLossScale(trained, s), 16384.0f);
  ASSERT_EQ(TFD_ModelLossScaleGoodSteps(trained, s), 3);
  const std::string prefix = std::string(std::getenv("TEST_TMPDIR")) + "/mixed_ckpts/ckpt";
  TF_Buffer* saved = TFD_ModelSaveCheckpoint(trained, prefix.c_str(), s);
  ASSERT_TF_OK(s);
  const std::string path(static_cast<const char*>(saved->data), saved->length);
  TF_DeleteBuffer(saved);

  TFD_Model* restored = Mlp(/*float32_output=*/true, s);
  CompilePlainSgd(restored, s);
  ASSERT_TF_OK(s);
  EXPECT_EQ(TFD_ModelLossScale(restored, s), 32768.0f);
  TFD_ModelRestoreCheckpoint(restored, path.c_str(), s);
  ASSERT_TF_OK(s);
  EXPECT_EQ(TFD_ModelLossScale(restored, s), TFD_ModelLossScale(trained, s));
  EXPECT_EQ(TFD_ModelLossScaleGoodSteps(restored, s), 3);
  EXPECT_EQ(WeightValues(restored), WeightValues(trained));
  // Both go on alike: the count continues, an overflow halves the same scale.
  TFD_ModelTrainStep(trained, x, y, s);
  TFD_ModelTrainStep(restored, x, y, s);
  ASSERT_TF_OK(s);
  EXPECT_EQ(TFD_ModelLossScaleGoodSteps(restored, s), 4);
  EXPECT_EQ(WeightValues(restored), WeightValues(trained));
  TFD_ModelTrainStep(restored, overflow, y, s);
  ASSERT_TF_OK(s);
  EXPECT_EQ(TFD_ModelLossScale(restored, s), 8192.0f);
  TF_DeleteTensor(overflow);
  TF_DeleteTensor(x);
  TF_DeleteTensor(y);
  TFD_DeleteModel(trained);
  TFD_DeleteModel(restored);
}

// tf-keras 2.21's model.to_json() of a mixed_float16 model: its layers keep
// their policies whatever the global one; the model's own policy is the
// global one when it is read, and only that decides the loss scaling, as
// in Keras (set_global_policy("mixed_float16") before model_from_json).
TEST_F(MixedPrecisionTest, KerasJsonLayersKeepTheirPolicies) {
  const char* kJson = R"({"class_name": "Sequential", "config": {"name": "sequential", "layers": [
    {"module": "keras.layers", "class_name": "InputLayer", "config": {"batch_input_shape":
      [null, 4], "dtype": "float32", "sparse": false, "ragged": false, "name": "input_1"},
     "registered_name": null},
    {"module": "keras.layers", "class_name": "Dense", "config": {"name": "dense", "trainable":
      true, "dtype": {"module": "keras.mixed_precision", "class_name": "Policy", "config":
      {"name": "mixed_float16"}, "registered_name": null}, "units": 3, "activation": "linear",
      "use_bias": true}, "registered_name": null},
    {"module": "keras.layers", "class_name": "Dense", "config": {"name": "dense_1",
      "trainable": true, "dtype": "float32", "units": 2, "activation": "linear",
      "use_bias": true}, "registered_name": null}]},
    "keras_version": "2.21.0", "backend": "tensorflow"})";
  Status s;
  TFD_Model* plain = TFD_NewModelFromKerasJson(nullptr, kJson, s);
  ASSERT_TF_OK(s);
  EXPECT_STREQ(TFD_ModelDtypePolicy(plain, s), "float32");
  EXPECT_EQ(LayerNamed(plain, "dense")->dtype_policy().name(), "mixed_float16");
  EXPECT_EQ(LayerNamed(plain, "dense_1")->dtype_policy().name(), "float32");
  TFD_ModelCompile(plain, "sgd", nullptr, "mse", nullptr, nullptr, 0, s);
  ASSERT_TF_OK(s);
  TFD_ModelLossScale(plain, s);
  EXPECT_EQ(s.code(), TF_FAILED_PRECONDITION);  // tf-keras: a plain SGD.
  TF_SetStatus(s, TF_OK, "");

  TFD_SetGlobalPolicy("mixed_float16", s);
  TFD_Model* mixed = TFD_NewModelFromKerasJson(nullptr, kJson, s);
  ASSERT_TF_OK(s);
  EXPECT_STREQ(TFD_ModelDtypePolicy(mixed, s), "mixed_float16");
  EXPECT_EQ(LayerNamed(mixed, "dense_1")->dtype_policy().name(), "float32");
  TFD_ModelCompile(mixed, "sgd", nullptr, "mse", nullptr, nullptr, 0, s);
  ASSERT_TF_OK(s);
  EXPECT_EQ(TFD_ModelLossScale(mixed, s), 32768.0f);  // tf-keras: LossScaleOptimizerV3.
  EXPECT_TF_OK(s);
  TFD_DeleteModel(plain);
  TFD_DeleteModel(mixed);
}

}  // namespace
