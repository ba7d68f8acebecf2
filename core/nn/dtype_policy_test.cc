// Dtype policies as tf-keras 2.21 defines them, and layers under them:
// float32 weights, 16-bit computation and outputs, gradients reaching the
// float32 weights through the Cast, and a float32 last layer.
#include "core/nn/dtype_policy.h"

#include <cmath>
#include <memory>

#include "core/autodiff/gradient_tape.h"
#include "core/nn/activation_layer.h"
#include "core/nn/conv.h"
#include "core/nn/dense.h"
#include "core/nn/embedding.h"
#include "core/nn/layer_testutil.h"
#include "gtest/gtest.h"

namespace tfd {
namespace nn {
namespace {

using test::ExpectError;
using test::RandomTensor;

DTypePolicy Policy(const char* name) { return *DTypePolicy::FromName(name); }

TEST(DTypePolicyTest, NamesAndDtypesAreKeras) {
  // tf.keras.mixed_precision.Policy(name).compute_dtype / .variable_dtype.
  struct Case {
    const char* name;
    const char* policy_name;
    DataType compute, variable;
  } cases[] = {{"float32", "float32", DT_FLOAT, DT_FLOAT},
               {"float64", "float64", DT_DOUBLE, DT_DOUBLE},
               {"half", "float16", DT_HALF, DT_HALF},
               {"bfloat16", "bfloat16", DT_BFLOAT16, DT_BFLOAT16},
               {"mixed_float16", "mixed_float16", DT_HALF, DT_FLOAT},
               {"mixed_bfloat16", "mixed_bfloat16", DT_BFLOAT16, DT_FLOAT}};
  for (const Case& c : cases) {
    ASSERT_OK_AND_ASSIGN(DTypePolicy p, DTypePolicy::FromName(c.name));
    EXPECT_EQ(p.name(), c.policy_name);
    EXPECT_EQ(p.compute_dtype(), c.compute) << c.name;
    EXPECT_EQ(p.variable_dtype(), c.variable) << c.name;
    EXPECT_EQ(p.is_mixed(), c.compute != c.variable) << c.name;
  }
}

TEST(DTypePolicyTest, BadNamesAndNonFloatingGlobalPoliciesAreRefused) {
  ExpectError(DTypePolicy::FromName("mixed_float8").status(), absl::StatusCode::kInvalidArgument,
              {"Cannot convert value mixed_float8 to a mixed precision Policy",
               "'mixed_float16', 'mixed_bfloat16'"});
  ExpectError(SetGlobalPolicy("int32"), absl::StatusCode::kInvalidArgument,
              {"floating-point policies", "but got policy: int32"});
  EXPECT_EQ(GlobalPolicy().name(), "float32");
}

TEST(DTypePolicyTest, GlobalPolicyIsFloat32UntilSetAndScopedRestores) {
  EXPECT_EQ(GlobalPolicy(), DTypePolicy(DT_FLOAT));
  {
    ScopedGlobalPolicy scope(Policy("mixed_float16"));
    EXPECT_EQ(GlobalPolicy().name(), "mixed_float16");
    ASSERT_OK(SetGlobalPolicy("mixed_bfloat16"));
    EXPECT_EQ(GlobalPolicy().name(), "mixed_bfloat16");
  }
  EXPECT_EQ(GlobalPolicy().name(), "float32");
}

TEST(DTypePolicyTest, DenseUnderMixedPolicyKeepsFloat32WeightsAndComputesIn16Bits) {
  for (const char* name : {"mixed_float16", "mixed_bfloat16"}) {
    ScopedGlobalPolicy scope(Policy(name));
    Dense dense(3);
    EXPECT_EQ(dense.dtype_policy().name(), name);
    Tensor x = RandomTensor(DT_FLOAT, {2, 4}, 7);
    GradientTape tape;
    ASSERT_OK_AND_ASSIGN(Tensor y, dense.Call(x));
    EXPECT_EQ(dense.kernel()->dtype(), DT_FLOAT) << name;
    EXPECT_EQ(dense.bias()->dtype(), DT_FLOAT) << name;
    EXPECT_EQ(y.dtype(), Policy(name).compute_dtype()) << name;
    EXPECT_EQ(dense.dtype(), DT_FLOAT);
    EXPECT_EQ(dense.compute_dtype(), Policy(name).compute_dtype());

    // The gradient reaches the float32 kernel, in float32, and equals
    // x^T * 1 up to 16-bit rounding of x.
    ASSERT_OK_AND_ASSIGN(Tensor sum, Execute1("Sum", {y, *Tensor::FromVector<int32_t>({0, 1}, {2})}));
    ASSERT_OK_AND_ASSIGN(Tensor loss, Execute1("Cast", {sum}, AttrMap().Set("DstT", DT_FLOAT)));
    ASSERT_OK_AND_ASSIGN(auto grads, tape.Gradient(loss, LocalVariables(dense.trainable_weights())));
    ASSERT_EQ(grads.size(), 2u);
    EXPECT_EQ(grads[0].dtype(), DT_FLOAT);
    const std::vector<double> xs = test::Values(x), g = test::Values(grads[0]);
    for (int i = 0; i < 4; ++i) {
      for (int j = 0; j < 3; ++j) {
        EXPECT_NEAR(g[i * 3 + j], xs[i] + xs[4 + i], 1e-2) << name;
      }
    }
    EXPECT_EQ(test::Values(grads[1]), std::vector<double>(3, 2.0)) << name;
  }
}

TEST(DTypePolicyTest, ExplicitDtypeOrPolicyOverridesTheGlobalPolicy) {
  ScopedGlobalPolicy scope(Policy("mixed_bfloat16"));
  // Keras's advice: the softmax in float32.
  LayerOptions float32;
  float32.dtype = DT_FLOAT;
  Activation softmax("softmax", float32);
  EXPECT_EQ(softmax.compute_dtype(), DT_FLOAT);
  Dense hidden(4);
  ASSERT_OK_AND_ASSIGN(Tensor h, hidden.Call(RandomTensor(DT_FLOAT, {2, 3}, 1)));
  EXPECT_EQ(h.dtype(), DT_BFLOAT16);
  ASSERT_OK_AND_ASSIGN(Tensor p, softmax.Call(h));
  EXPECT_EQ(p.dtype(), DT_FLOAT);

  Dense half_policy(2, Dense::Options().Policy(Policy("mixed_float16")));
  ASSERT_OK_AND_ASSIGN(Tensor y, half_policy.Call(h));
  EXPECT_EQ(y.dtype(), DT_HALF);
  EXPECT_EQ(half_policy.kernel()->dtype(), DT_FLOAT);
  Dense doubles(2, Dense::Options().Dtype(DT_DOUBLE));
  ASSERT_OK_AND_ASSIGN(Tensor d, doubles.Call(h));
  EXPECT_EQ(d.dtype(), DT_DOUBLE);
}

TEST(DTypePolicyTest, Conv2DAndEmbeddingUnderMixedPolicy) {
  ScopedGlobalPolicy scope(Policy("mixed_bfloat16"));
  Conv2D conv(2, {3});
  Tensor x = RandomTensor(DT_FLOAT, {1, 5, 5, 2}, 3);
  ASSERT_OK_AND_ASSIGN(Tensor y, conv.Call(x));
  EXPECT_EQ(y.dtype(), DT_BFLOAT16);
  EXPECT_EQ(conv.kernel()->dtype(), DT_FLOAT);

  // The same convolution in float32 agrees within bfloat16's precision.
  Conv2D conv32(2, {3}, ConvOptions().Dtype(DT_FLOAT));
  ASSERT_OK(conv32.Build(Shape{1, 5, 5, 2}));
  test::AssignWeight(conv32.kernel(), test::Values(conv.kernel()->Read()));
  ASSERT_OK_AND_ASSIGN(Tensor y32, conv32.Call(x));
  const std::vector<double> a = test::Values(y), b = test::Values(y32);
  ASSERT_EQ(a.size(), b.size());
  for (size_t i = 0; i < a.size(); ++i) EXPECT_NEAR(a[i], b[i], 2e-2 * (1 + std::abs(b[i])));

  Embedding embedding(10, 3);
  ASSERT_OK_AND_ASSIGN(Tensor e, embedding.Call(*Tensor::FromVector<int32_t>({1, 4}, {2})));
  EXPECT_EQ(e.dtype(), DT_BFLOAT16);
  EXPECT_EQ(embedding.embeddings()->dtype(), DT_FLOAT);
}

}  // namespace
}  // namespace nn
}  // namespace tfd
