#include "core/nn/metrics_binary_accuracy.h"

#include "core/framework/tensor_testutil.h"
#include "core/nn/layer_testutil.h"
#include "gtest/gtest.h"

namespace tfd {
namespace nn {
namespace {

TEST(BinaryAccuracyTest, ThresholdsAndAveragesLikeKeras) {
  ASSERT_OK_AND_ASSIGN(auto acc, BinaryAccuracy::Create());
  EXPECT_EQ(acc->name(), "binary_accuracy");
  // tf.keras.metrics.BinaryAccuracy()([[1], [1], [0], [0]], [[0.98], [1], [0], [0.6]]) == 0.75
  ASSERT_OK(acc->Update(tfd::test::AsTensor<float>({1, 1, 0, 0}, {4, 1}),
                        tfd::test::AsTensor<float>({0.98f, 1.0f, 0.0f, 0.6f}, {4, 1})));
  ASSERT_OK_AND_ASSIGN(Tensor r, acc->Result());
  EXPECT_FLOAT_EQ(tfd::test::ToHost(r).scalar<float>(), 0.75f);

  // Two columns: each sample counts the mean of its columns (0.5 and 1).
  ASSERT_OK(acc->Reset());
  ASSERT_OK(acc->Update(tfd::test::AsTensor<float>({1, 0, 0, 1}, {2, 2}),
                        tfd::test::AsTensor<float>({0.7f, 0.7f, 0.2f, 0.9f}, {2, 2})));
  ASSERT_OK_AND_ASSIGN(r, acc->Result());
  EXPECT_FLOAT_EQ(tfd::test::ToHost(r).scalar<float>(), 0.75f);

  ASSERT_OK_AND_ASSIGN(auto strict, BinaryAccuracy::Create("acc", 0.95));
  ASSERT_OK(strict->Update(tfd::test::AsTensor<float>({1, 1}, {2, 1}),
                           tfd::test::AsTensor<float>({0.9f, 0.99f}, {2, 1})));
  ASSERT_OK_AND_ASSIGN(r, strict->Result());
  EXPECT_FLOAT_EQ(tfd::test::ToHost(r).scalar<float>(), 0.5f);
}

}  // namespace
}  // namespace nn
}  // namespace tfd
