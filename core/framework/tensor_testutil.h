// Test helpers for tensors: build host tensors from literals and compare
// tensors with GoogleTest. Test-only.
#ifndef TFD_CORE_FRAMEWORK_TENSOR_TESTUTIL_H_
#define TFD_CORE_FRAMEWORK_TENSOR_TESTUTIL_H_

#include <string>
#include <vector>

#include "core/framework/tensor.h"
#include "gtest/gtest.h"

namespace tfd {
namespace test {

// A host tensor of `shape` holding `values`; fails the test on a size
// mismatch.
template <typename T>
Tensor AsTensor(const std::vector<T>& values, const TensorShape& shape) {
  absl::StatusOr<Tensor> t = Tensor::FromVector(values, shape);
  EXPECT_TRUE(t.ok()) << t.status();
  return t.ok() ? *t : Tensor(DataTypeToEnum<T>::value, shape);
}

// A host tensor of a floating dtype (float, double, half, bfloat16) with
// elements drawn uniformly from [-1, 1) by a seeded generator: the same
// seed gives the same tensor.
Tensor RandomUniformTensor(DataType dtype, const TensorShape& shape, uint32_t seed);

// A 1-D int32 host tensor of `values` (sizes, axes, shapes fed to ops).
Tensor Int32Vector(const std::vector<int64_t>& values);

// A 1-D host string tensor of `values`.
Tensor StringVector(const std::vector<std::string>& values);

// The elements of a host string tensor; fails the test (and gives none)
// when `t` is not a string tensor in host memory.
std::vector<std::string> StringsOf(const Tensor& t);

// `t` copied to the host (a deep copy even of a host tensor); fails the
// test when the copy fails. Read op outputs through it: under a default
// device (a GPU, or the fake GPU suite) they are not in host memory.
Tensor ToHost(const Tensor& t);

// `t` copied to where an op with no placement runs on host inputs
// (CurrentDevice(): a DeviceScope's, else the default device, else the
// host); `t` itself when it is there already, or when it is a string
// tensor and that device is outside host memory. For tests of views, whose
// input must already be where the op runs.
Tensor OnCurrentDevice(const Tensor& t);

// The elements of `t` (copied to the host) as doubles.
std::vector<double> ToDoubles(const Tensor& t);

// Same dtype and shape, and every element within atol + rtol * |expected|.
void ExpectTensorNear(const Tensor& actual, const Tensor& expected, double atol = 1e-6,
                      double rtol = 1e-6);
// Same dtype, shape and bytes.
void ExpectTensorEqual(const Tensor& actual, const Tensor& expected);

}  // namespace test
}  // namespace tfd

#endif  // TFD_CORE_FRAMEWORK_TENSOR_TESTUTIL_H_
