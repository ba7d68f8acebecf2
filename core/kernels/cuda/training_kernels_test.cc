// Parity of the GPU optimizer updates with the CPU kernels: each
// ResourceApply* op on the GPU updates var and slots in place as the CPU
// kernel does (float32 1e-5, 16-bit 1e-2 relative to the largest value),
// and one multi-tensor launch over 100 variables of mixed sizes (empty
// ones, more than one table's worth) equals one CPU op per variable. They
// need a GPU and skip, saying so, without one.
#include <cmath>
#include <string>
#include <vector>

#include "core/device/cuda/cuda_device.h"
#include "core/device/cuda/cuda_test_util.h"
#include "core/framework/execute.h"
#include "core/framework/kernel.h"
#include "core/framework/tensor_testutil.h"
#include "core/kernels/cuda/optimizer_updates.h"
#include "core/kernels/cuda/parity_testutil.h"
#include "gtest/gtest.h"

namespace tfd {
namespace {

const char* const kOps[] = {"ResourceApplyGradientDescent",
                            "ResourceApplyKerasMomentum",
                            "ResourceApplyAdam",
                            "ResourceApplyAdamWithAmsgrad",
                            "ResourceApplyRMSProp",
                            "ResourceApplyCenteredRMSProp",
                            "TfdApplyRMSPropNoMomentum",
                            "TfdApplyCenteredRMSPropNoMomentum",
                            "TfdApplyKerasAdagrad"};

TEST(TrainingGpuRegistrationTest, RegisteredForTheFloatingTypes) {
  test::ExpectGpuKernels(std::vector<std::string>(std::begin(kOps), std::end(kOps)),
                         {DT_FLOAT, DT_DOUBLE, DT_HALF, DT_BFLOAT16});
}

class TrainingGpuTest : public test::GpuTest {
 protected:
  template <typename T>
  Tensor ScalarOf(float v) {
    return test::AsTensor<T>({static_cast<T>(v)}, TensorShape({}));
  }

  // Runs `op` on the CPU over host buffers and on the GPU over device
  // copies of the same values; compares every buffer (the first `buffers`
  // inputs, updated in place) afterwards.
  void Compare(const std::string& op, std::vector<Tensor> inputs, int buffers,
               const AttrMap& attrs) {
    std::vector<Tensor> on_gpu;
    for (const Tensor& t : inputs) {
      if (t.rank() == 0) {
        on_gpu.push_back(t);  // host-memory hyperparameter
      } else {
        absl::StatusOr<Tensor> copy = t.CopyTo(gpu_);
        ASSERT_TRUE(copy.ok()) << copy.status();
        on_gpu.push_back(*copy);
      }
    }
    for (Tensor& t : inputs) {
      if (t.rank() > 0) t = *t.CopyTo(HostDevice());  // private host buffers
    }
    ASSERT_TRUE(Execute(op, inputs, attrs, HostDevice()).ok()) << op;
    absl::Status gpu_status = Execute(op, on_gpu, attrs, gpu_).status();
    ASSERT_TRUE(gpu_status.ok()) << op << ": " << gpu_status;
    for (int i = 0; i < buffers; ++i) {
      SCOPED_TRACE(testing::Message() << op << " buffer " << i);
      test::ExpectNearScaled(*on_gpu[i].CopyTo(HostDevice()), inputs[i],
                             test::ParityTolerance(inputs[i].dtype()));
    }
  }

  template <typename T>
  void CheckOps() {
    for (int64_t n : {int64_t{1}, int64_t{1000}, int64_t{70000}}) {
      SCOPED_TRACE(testing::Message() << DataTypeName(DataTypeToEnum<T>::value) << " n=" << n);
      const Tensor var = test::RandomTensor<T>({n}, 1);
      const Tensor m = test::RandomTensor<T>({n}, 2);
      const Tensor v = test::RandomTensor<T>({n}, 3, 0, 1);
      const Tensor vhat = test::RandomTensor<T>({n}, 4, 0, 1);
      const Tensor grad = test::RandomTensor<T>({n}, 5);
      Compare("ResourceApplyGradientDescent", {var, ScalarOf<T>(0.1f), grad}, 1, AttrMap());
      for (bool nesterov : {false, true}) {
        Compare("ResourceApplyKerasMomentum",
                {var, m, ScalarOf<T>(0.01f), grad, ScalarOf<T>(0.9f)}, 2,
                AttrMap().Set("use_nesterov", nesterov));
        Compare("ResourceApplyAdam",
                {var, m, v, ScalarOf<T>(0.81f), ScalarOf<T>(0.998f), ScalarOf<T>(0.01f),
                 ScalarOf<T>(0.9f), ScalarOf<T>(0.999f), ScalarOf<T>(1e-3f), grad},
                3, AttrMap().Set("use_nesterov", nesterov));
      }
      Compare("ResourceApplyAdamWithAmsgrad",
              {var, m, v, vhat, ScalarOf<T>(0.81f), ScalarOf<T>(0.998f), ScalarOf<T>(0.01f),
               ScalarOf<T>(0.9f), ScalarOf<T>(0.999f), ScalarOf<T>(1e-3f), grad},
              4, AttrMap());
      // ms well above mg^2, so the centered denominator stays positive.
      const Tensor ms = test::RandomTensor<T>({n}, 6, 0.5, 1);
      const Tensor mg = test::RandomTensor<T>({n}, 7, -0.3, 0.3);
      const Tensor lr = ScalarOf<T>(0.01f), rho = ScalarOf<T>(0.9f), eps = ScalarOf<T>(1e-3f);
      Compare("ResourceApplyRMSProp", {var, ms, m, lr, rho, ScalarOf<T>(0.5f), eps, grad}, 3,
              AttrMap());
      Compare("ResourceApplyCenteredRMSProp",
              {var, mg, ms, m, lr, rho, ScalarOf<T>(0.5f), eps, grad}, 4, AttrMap());
      Compare("TfdApplyRMSPropNoMomentum", {var, ms, lr, rho, eps, grad}, 2, AttrMap());
      Compare("TfdApplyCenteredRMSPropNoMomentum", {var, mg, ms, lr, rho, eps, grad}, 3,
              AttrMap());
      Compare("TfdApplyKerasAdagrad", {var, v, lr, eps, grad}, 2, AttrMap());
    }
  }
};

TEST_F(TrainingGpuTest, Float32MatchesCpu) { CheckOps<float>(); }
TEST_F(TrainingGpuTest, HalfMatchesCpu) { CheckOps<half>(); }
TEST_F(TrainingGpuTest, Bfloat16MatchesCpu) { CheckOps<bfloat16>(); }
TEST_F(TrainingGpuTest, DoubleMatchesCpu) { CheckOps<double>(); }

TEST_F(TrainingGpuTest, OneLaunchOverManyVariablesMatchesOneCpuOpEach) {
  // More than one table of kMaxTensorsPerLaunch.
  constexpr int kVars = cuda_kernels::kMaxTensorsPerLaunch + 52;
  std::vector<Tensor> vars, ms, vs, grads, dvars, dms, dvs, dgrads;
  std::vector<cuda_kernels::UpdateTensors<float>> table;
  for (int k = 0; k < kVars; ++k) {
    const int64_t n = k % 10 == 0 ? 0 : (k * 997) % 5000 + 1;
    vars.push_back(test::RandomTensor<float>({n}, 10 + k));
    ms.push_back(test::RandomTensor<float>({n}, 200 + k));
    vs.push_back(test::RandomTensor<float>({n}, 400 + k, 0, 1));
    grads.push_back(test::RandomTensor<float>({n}, 600 + k));
    dvars.push_back(*vars.back().CopyTo(gpu_));
    dms.push_back(*ms.back().CopyTo(gpu_));
    dvs.push_back(*vs.back().CopyTo(gpu_));
    dgrads.push_back(*grads.back().CopyTo(gpu_));
    cuda_kernels::UpdateTensors<float> u;
    u.var = dvars.back().data<float>();
    u.slot0 = dms.back().data<float>();
    u.slot1 = dvs.back().data<float>();
    u.grad = dgrads.back().data<float>();
    u.n = n;
    table.push_back(u);
  }
  // alpha as the op computes it for lr 0.01, beta powers 0.81 and 0.998.
  cuda_kernels::AdamParams p;
  p.alpha = 0.01f * std::sqrt(1.0f - 0.998f) / (1.0f - 0.81f);
  p.beta1 = 0.9f;
  p.beta2 = 0.999f;
  p.epsilon = 1e-3f;
  p.nesterov = false;
  p.amsgrad = false;
  ASSERT_TRUE(gpu_->Activate().ok());
  ASSERT_EQ(cuda_kernels::LaunchAdam<float>(table.data(), kVars, p, gpu_->stream()),
            cudaSuccess);
  auto s = [](float v) { return test::AsTensor<float>({v}, TensorShape({})); };
  for (int k = 0; k < kVars; ++k) {
    SCOPED_TRACE(testing::Message() << "variable " << k);
    ASSERT_TRUE(Execute("ResourceApplyAdam",
                        {vars[k], ms[k], vs[k], s(0.81f), s(0.998f), s(0.01f), s(0.9f),
                         s(0.999f), s(1e-3f), grads[k]},
                        AttrMap().Set("use_nesterov", false), HostDevice())
                    .ok());
    if (vars[k].NumElements() == 0) continue;
    test::ExpectNearScaled(*dvars[k].CopyTo(HostDevice()), vars[k], 1e-5);
    test::ExpectNearScaled(*dms[k].CopyTo(HostDevice()), ms[k], 1e-5);
    test::ExpectNearScaled(*dvs[k].CopyTo(HostDevice()), vs[k], 1e-5);
  }
}

}  // namespace
}  // namespace tfd
