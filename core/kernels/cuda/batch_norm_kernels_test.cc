// Parity of the cuDNN FusedBatchNormV3 and FusedBatchNormGradV3 kernels
// with the CPU kernels (float32 1e-5, 16-bit 1e-2 relative to each
// output's largest magnitude): training with and without a moving-average
// factor, inference, both gradients, every data format, one element per
// channel and an empty batch; channels-last cases take cuDNN's persistent
// Ex path, long channels the inference gradient's split sums. All six
// (five) outputs are compared, reserve spaces included, and each device's
// forward reserve spaces are fed to both devices' gradients, so either
// device's forward pass feeds the other's gradient. They need a GPU and
// skip, saying so, without one.
#include <cmath>
#include <string>
#include <vector>

#include "core/framework/execute.h"
#include "core/framework/tensor_testutil.h"
#include "core/kernels/cuda/parity_testutil.h"
#include "gtest/gtest.h"

namespace tfd {
namespace {

TEST(BatchNormGpuRegistrationTest, RegisteredForFloatAndThe16BitTypes) {
  test::ExpectGpuKernels({"FusedBatchNormV3", "FusedBatchNormGradV3"},
                         {DT_FLOAT, DT_HALF, DT_BFLOAT16});
}

struct Case {
  std::string format;
  TensorShape x;
  int64_t channels;
};

const Case kCases[] = {
    {"NHWC", {2, 5, 5, 3}, 3},     {"NHWC", {4, 7, 3, 16}, 16},   {"NHWC", {1, 1, 1, 4}, 4},
    {"NHWC", {8, 16, 16, 32}, 32}, {"NCHW", {2, 3, 5, 5}, 3},     {"NCHW", {3, 8, 4, 4}, 8},
    {"NCHW", {2, 4, 1, 1}, 4},     {"NDHWC", {2, 3, 3, 3, 4}, 4}, {"NCDHW", {2, 4, 3, 2, 3}, 4},
    // ResNet-like channels-last shapes for the persistent kernels.
    {"NHWC", {16, 14, 14, 64}, 64}, {"NHWC", {4, 7, 7, 256}, 256},
    // 32768 elements per channel: the inference gradient's sums split in
    // 4 runs (batch_norm_plan.h).
    {"NHWC", {8, 64, 64, 8}, 8},   {"NCHW", {2, 4, 128, 128}, 4},
};

class BatchNormGpuTest : public test::GpuTest {
 protected:
  template <typename T>
  void CheckParity() {
    for (const Case& c : kCases) {
      SCOPED_TRACE(testing::Message() << DataTypeName(DataTypeToEnum<T>::value) << " "
                                      << c.format << " " << c.x.DebugString());
      const Tensor x = test::RandomTensor<T>(c.x, 1, -2, 3);
      const Tensor dy = test::RandomTensor<T>(c.x, 2);
      const TensorShape per_channel({c.channels});
      const Tensor scale = test::RandomTensor<float>(per_channel, 3, 0.5, 2);
      const Tensor offset = test::RandomTensor<float>(per_channel, 4);
      const Tensor mean = test::RandomTensor<float>(per_channel, 5);
      const Tensor variance = test::RandomTensor<float>(per_channel, 6, 0.5, 2);
      for (bool training : {true, false}) {
        for (float factor : {1.0f, 0.3f}) {
          SCOPED_TRACE(testing::Message() << "training " << training << " factor " << factor);
          const AttrMap attrs = AttrMap()
                                    .Set("data_format", c.format)
                                    .Set("is_training", training)
                                    .Set("epsilon", 0.001f);
          const AttrMap forward = AttrMap(attrs).Set("exponential_avg_factor", factor);
          const std::vector<Tensor> inputs = {x, scale, offset, mean, variance};
          test::ExpectGpuOutputsMatchCpu("FusedBatchNormV3", inputs, forward, gpu_);
          absl::StatusOr<std::vector<Tensor>> fwd =
              Execute("FusedBatchNormV3", inputs, forward, HostDevice());
          ASSERT_TRUE(fwd.ok()) << fwd.status();
          test::ExpectGpuOutputsMatchCpu("FusedBatchNormGradV3",
                                         {dy, x, scale, (*fwd)[3], (*fwd)[4], (*fwd)[5]}, attrs,
                                         gpu_);
          // The GPU forward's reserve spaces feed both gradients alike.
          absl::StatusOr<std::vector<Tensor>> gpu_fwd =
              Execute("FusedBatchNormV3", inputs, forward, gpu_);
          ASSERT_TRUE(gpu_fwd.ok()) << gpu_fwd.status();
          std::vector<Tensor> grad_inputs = {dy, x, scale};
          for (int i : {3, 4, 5}) {
            absl::StatusOr<Tensor> host = (*gpu_fwd)[i].CopyTo(HostDevice());
            ASSERT_TRUE(host.ok()) << host.status();
            grad_inputs.push_back(*host);
          }
          test::ExpectGpuOutputsMatchCpu("FusedBatchNormGradV3", grad_inputs, attrs, gpu_);
        }
      }
    }
  }
};

TEST_F(BatchNormGpuTest, Float32MatchesCpu) { CheckParity<float>(); }
TEST_F(BatchNormGpuTest, HalfMatchesCpu) { CheckParity<half>(); }
TEST_F(BatchNormGpuTest, Bfloat16MatchesCpu) { CheckParity<bfloat16>(); }

TEST_F(BatchNormGpuTest, EmptyBatchGivesNanStatistics) {
  const Tensor x(DT_FLOAT, {0, 3, 3, 2});
  const Tensor p = test::AsTensor<float>({1, 2}, {2});
  absl::StatusOr<std::vector<Tensor>> r =
      Execute("FusedBatchNormV3", {x, p, p, p, p}, AttrMap(), gpu_);
  ASSERT_TRUE(r.ok()) << r.status();
  for (double v : test::ToDoubles((*r)[1])) EXPECT_TRUE(std::isnan(v));
  for (double v : test::ToDoubles((*r)[2])) EXPECT_TRUE(std::isnan(v));
  for (double v : test::ToDoubles((*r)[4])) EXPECT_EQ(v, 0);
  absl::StatusOr<std::vector<Tensor>> g =
      Execute("FusedBatchNormGradV3", {x, x, p, p, p, (*r)[5]}, AttrMap(), gpu_);
  ASSERT_TRUE(g.ok()) << g.status();
  for (double v : test::ToDoubles((*g)[1])) EXPECT_EQ(v, 0);
}

TEST_F(BatchNormGpuTest, BadShapesAreErrors) {
  const Tensor x = test::RandomTensor<float>({2, 3, 3, 2}, 1);
  const Tensor p = test::AsTensor<float>({1, 2, 3}, {3});
  absl::StatusOr<std::vector<Tensor>> r =
      Execute("FusedBatchNormV3", {x, p, p, p, p}, AttrMap(), gpu_);
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.status().code(), absl::StatusCode::kInvalidArgument);
}

}  // namespace
}  // namespace tfd
