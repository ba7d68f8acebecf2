// Tests of InTopKV2's CPU kernel against a plain count of higher scores:
// ties at the boundary, k = 0 and k past the class count, targets out of
// range, non-finite scores, int64 targets, a size-0 batch, and the shape
// errors.
#include <cmath>
#include <limits>
#include <string>
#include <vector>

#include "core/framework/execute.h"
#include "core/framework/tensor_testutil.h"
#include "gtest/gtest.h"

namespace tfd {
namespace {

using test::AsTensor;

absl::StatusOr<std::vector<bool>> InTopK(const std::vector<float>& scores, int64_t classes,
                                         const std::vector<int32_t>& targets, int32_t k) {
  const int64_t batch = static_cast<int64_t>(targets.size());
  TFD_ASSIGN_OR_RETURN(Tensor out,
                       Execute1("InTopKV2", {AsTensor<float>(scores, {batch, classes}),
                                             AsTensor<int32_t>(targets, {batch}),
                                             Tensor::Scalar<int32_t>(k)}));
  EXPECT_EQ(out.dtype(), DT_BOOL);
  std::vector<bool> result;
  const Tensor host = test::ToHost(out);
  for (int64_t i = 0; i < batch; ++i) result.push_back(host.data<bool>()[i]);
  return result;
}

// The definition: fewer than k classes strictly above the target.
std::vector<bool> Reference(const std::vector<float>& scores, int64_t classes,
                            const std::vector<int32_t>& targets, int32_t k) {
  std::vector<bool> result;
  for (size_t b = 0; b < targets.size(); ++b) {
    int higher = 0;
    for (int64_t c = 0; c < classes; ++c) higher += scores[b * classes + c] > scores[b * classes + targets[b]];
    result.push_back(higher < k);
  }
  return result;
}

TEST(InTopKTest, MatchesTheReferenceForEveryK) {
  const int64_t classes = 5;
  const std::vector<float> scores = {0.1f, 0.5f, 0.2f, 0.9f, 0.3f,   //
                                     3.0f, -1.0f, 2.0f, 2.0f, 0.0f,  //
                                     0.0f, 0.0f, 0.0f, 0.0f, 0.0f};
  const std::vector<int32_t> targets = {1, 2, 4};
  for (int32_t k = 0; k <= 6; ++k) {
    auto got = InTopK(scores, classes, targets, k);
    ASSERT_TRUE(got.ok()) << got.status();
    EXPECT_EQ(*got, Reference(scores, classes, targets, k)) << "k=" << k;
  }
  // Row 1: target 2 ties with class 3 at 2.0; only class 0 is higher, so
  // both tied classes are in the top 2.
  EXPECT_EQ((*InTopK(scores, classes, targets, 2))[1], true);
  EXPECT_EQ((*InTopK(scores, classes, targets, 1))[1], false);
  // Row 2: all tied: in the top 1.
  EXPECT_EQ((*InTopK(scores, classes, targets, 1))[2], true);
}

TEST(InTopKTest, BadTargetsAndNonFiniteScoresAreFalse) {
  const float inf = std::numeric_limits<float>::infinity();
  const float nan = std::numeric_limits<float>::quiet_NaN();
  auto got = InTopK({1, 2, 3, /**/ 1, 2, 3, /**/ 1, inf, 3, /**/ nan, 2, 3}, 3, {-1, 3, 2, 2}, 3);
  ASSERT_TRUE(got.ok()) << got.status();
  EXPECT_EQ(*got, (std::vector<bool>{false, false, false, false}));
}

TEST(InTopKTest, Int64TargetsAndEmptyBatch) {
  auto out = Execute1("InTopKV2", {AsTensor<float>({0.2f, 0.8f}, {1, 2}),
                                   AsTensor<int64_t>({1}, {1}), Tensor::Scalar<int64_t>(1)});
  ASSERT_TRUE(out.ok()) << out.status();
  EXPECT_TRUE(test::ToHost(*out).data<bool>()[0]);
  auto empty = Execute1("InTopKV2", {Tensor(DT_FLOAT, TensorShape({0, 4})),
                                     Tensor(DT_INT32, TensorShape({0})),
                                     Tensor::Scalar<int32_t>(1)});
  ASSERT_TRUE(empty.ok()) << empty.status();
  EXPECT_EQ(empty->shape(), TensorShape({0}));
}

TEST(InTopKTest, ShapeErrorsNameTheOpAndShapes) {
  auto rank = Execute1("InTopKV2", {Tensor(DT_FLOAT, TensorShape({4})),
                                    Tensor(DT_INT32, TensorShape({4})),
                                    Tensor::Scalar<int32_t>(1)});
  EXPECT_EQ(rank.status().code(), absl::StatusCode::kInvalidArgument);
  EXPECT_NE(rank.status().message().find("InTopKV2: predictions must be 2-dimensional"),
            std::string::npos)
      << rank.status();
  auto batch = Execute1("InTopKV2", {Tensor(DT_FLOAT, TensorShape({3, 4})),
                                     Tensor(DT_INT32, TensorShape({2})),
                                     Tensor::Scalar<int32_t>(1)});
  EXPECT_NE(batch.status().message().find("[3,4] and [2]"), std::string::npos)
      << batch.status();
  auto dtype = Execute1("InTopKV2", {Tensor(DT_DOUBLE, TensorShape({1, 2})),
                                     Tensor(DT_INT32, TensorShape({1})),
                                     Tensor::Scalar<int32_t>(1)});
  EXPECT_EQ(dtype.status().code(), absl::StatusCode::kInvalidArgument);
}

}  // namespace
}  // namespace tfd
