#include "core/framework/tensor_testutil.h"

#include <cmath>
#include <cstring>
#include <random>

#include "core/framework/placement.h"

namespace tfd {
namespace test {

namespace {

template <typename T>
void FillUniform(Tensor& t, uint32_t seed) {
  std::mt19937 gen(seed);
  std::uniform_real_distribution<float> dist(-1.0f, 1.0f);
  for (int64_t i = 0; i < t.NumElements(); ++i) t.data<T>()[i] = T(dist(gen));
}

}  // namespace

Tensor RandomUniformTensor(DataType dtype, const TensorShape& shape, uint32_t seed) {
  Tensor t(dtype, shape);
  switch (dtype) {
    case DT_FLOAT: FillUniform<float>(t, seed); break;
    case DT_DOUBLE: FillUniform<double>(t, seed); break;
    case DT_HALF: FillUniform<half>(t, seed); break;
    case DT_BFLOAT16: FillUniform<bfloat16>(t, seed); break;
    default: ADD_FAILURE() << "RandomUniformTensor: not a floating dtype: " << DataTypeName(dtype);
  }
  return t;
}

Tensor Int32Vector(const std::vector<int64_t>& values) {
  std::vector<int32_t> v(values.begin(), values.end());
  return AsTensor<int32_t>(v, {static_cast<int64_t>(v.size())});
}

Tensor StringVector(const std::vector<std::string>& values) {
  Tensor t(DT_STRING, {static_cast<int64_t>(values.size())});
  for (size_t i = 0; i < values.size(); ++i) t.data<std::string>()[i] = values[i];
  return t;
}

std::vector<std::string> StringsOf(const Tensor& t) {
  EXPECT_EQ(t.dtype(), DT_STRING);
  EXPECT_TRUE(t.device()->host_memory()) << "strings on " << t.device()->name();
  if (t.dtype() != DT_STRING || !t.device()->host_memory()) return {};
  return std::vector<std::string>(t.data<std::string>(), t.data<std::string>() + t.NumElements());
}

Tensor ToHost(const Tensor& t) {
  absl::StatusOr<Tensor> host = t.CopyTo(HostDevice());
  EXPECT_TRUE(host.ok()) << host.status();
  return host.ok() ? *host : Tensor();
}

Tensor OnCurrentDevice(const Tensor& t) {
  absl::StatusOr<Device*> device = CurrentDevice();
  EXPECT_TRUE(device.ok()) << device.status();
  if (!device.ok() || *device == t.device()) return t;
  // Strings stay on the host, where the ops that read them run
  // (Note [Host-only dtypes] in placement.h).
  if (IsHostOnlyType(t.dtype()) && !(*device)->host_memory()) return t;
  absl::StatusOr<Tensor> placed = t.CopyTo(*device);
  EXPECT_TRUE(placed.ok()) << placed.status();
  return placed.ok() ? *placed : t;
}

std::vector<double> ToDoubles(const Tensor& t) {
  absl::StatusOr<Tensor> host = t.CopyTo(HostDevice());
  EXPECT_TRUE(host.ok()) << host.status();
  std::vector<double> out;
  if (!host.ok()) return out;
  switch (t.dtype()) {
#define TFD_TO_DOUBLE_CASE(T)                                           \
  case DataTypeToEnum<T>::value:                                        \
    for (int64_t i = 0; i < t.NumElements(); ++i) {                     \
      out.push_back(static_cast<double>(static_cast<float>(host->data<T>()[i]))); \
    }                                                                   \
    break;
    TFD_TO_DOUBLE_CASE(half)
    TFD_TO_DOUBLE_CASE(bfloat16)
#undef TFD_TO_DOUBLE_CASE
#define TFD_TO_DOUBLE_CASE(T)                                                \
  case DataTypeToEnum<T>::value:                                             \
    for (int64_t i = 0; i < t.NumElements(); ++i) {                          \
      out.push_back(static_cast<double>(host->data<T>()[i]));                \
    }                                                                        \
    break;
    TFD_TO_DOUBLE_CASE(float)
    TFD_TO_DOUBLE_CASE(double)
    TFD_INT_TYPES(TFD_TO_DOUBLE_CASE)
    TFD_TO_DOUBLE_CASE(bool)
#undef TFD_TO_DOUBLE_CASE
    default:
      ADD_FAILURE() << "ToDoubles: unsupported dtype " << DataTypeName(t.dtype());
  }
  return out;
}

void ExpectTensorNear(const Tensor& actual, const Tensor& expected, double atol,
                      double rtol) {
  ASSERT_TRUE(actual.defined()) << "actual tensor is undefined";
  ASSERT_EQ(actual.dtype(), expected.dtype())
      << DataTypeName(actual.dtype()) << " vs " << DataTypeName(expected.dtype());
  ASSERT_EQ(actual.shape(), expected.shape())
      << actual.shape().DebugString() << " vs " << expected.shape().DebugString();
  const std::vector<double> a = ToDoubles(actual);
  const std::vector<double> e = ToDoubles(expected);
  int reported = 0;
  for (size_t i = 0; i < a.size() && reported < 10; ++i) {
    const bool both_nan = std::isnan(a[i]) && std::isnan(e[i]);
    const bool same_inf = std::isinf(a[i]) && a[i] == e[i];
    if (both_nan || same_inf) continue;
    if (!(std::abs(a[i] - e[i]) <= atol + rtol * std::abs(e[i]))) {
      ADD_FAILURE() << "element " << i << ": got " << a[i] << ", expected " << e[i];
      ++reported;
    }
  }
}

void ExpectTensorEqual(const Tensor& actual, const Tensor& expected) {
  ASSERT_TRUE(actual.defined());
  ASSERT_EQ(actual.dtype(), expected.dtype());
  ASSERT_EQ(actual.shape(), expected.shape());
  if (actual.dtype() == DT_STRING) {
    for (int64_t i = 0; i < actual.NumElements(); ++i) {
      EXPECT_EQ(actual.data<std::string>()[i], expected.data<std::string>()[i]);
    }
    return;
  }
  absl::StatusOr<Tensor> a = actual.CopyTo(HostDevice());
  absl::StatusOr<Tensor> e = expected.CopyTo(HostDevice());
  ASSERT_TRUE(a.ok() && e.ok());
  EXPECT_EQ(std::memcmp(a->raw_data(), e->raw_data(), a->TotalBytes()), 0)
      << a->DebugString() << " vs " << e->DebugString();
}

}  // namespace test
}  // namespace tfd
