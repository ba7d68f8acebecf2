// Kernel lookup: the dtype-specific kernel over the any-dtype one, clear
// NOT_FOUND errors, and a per-thread cache that never answers with a
// stale kernel (a later registration, a reused name buffer).
#include "core/framework/kernel.h"

#include <string>

#include "gtest/gtest.h"

namespace tfd {
namespace {

absl::Status AnyType(KernelContext&) { return absl::OkStatus(); }
absl::Status FloatOnly(KernelContext&) { return absl::OkStatus(); }
absl::Status LateFloat(KernelContext&) { return absl::OkStatus(); }

// Kernel lookup needs no OpDef; these names exist only here.
TFD_REGISTER_KERNEL("KernelTestOpA", DeviceType::kCPU, DT_INVALID, AnyType);
TFD_REGISTER_KERNEL("KernelTestOpA", DeviceType::kCPU, DT_FLOAT, FloatOnly);
TFD_REGISTER_KERNEL("KernelTestOpB", DeviceType::kCPU, DT_INVALID, AnyType);

// Which of the functions above `fn` wraps.
template <typename Fn>
bool Is(const KernelFn* fn, Fn* target) {
  return fn != nullptr && fn->target<Fn*>() != nullptr && *fn->target<Fn*>() == target;
}

TEST(LookupKernelTest, PrefersTheDtypeKernelAndFallsBackToAnyDtype) {
  for (int i = 0; i < 2; ++i) {  // The second round is answered by the cache.
    absl::StatusOr<const KernelFn*> f = LookupKernel("KernelTestOpA", DeviceType::kCPU, DT_FLOAT);
    ASSERT_TRUE(f.ok()) << f.status();
    EXPECT_TRUE(Is(*f, FloatOnly));
    absl::StatusOr<const KernelFn*> d = LookupKernel("KernelTestOpA", DeviceType::kCPU, DT_DOUBLE);
    ASSERT_TRUE(d.ok()) << d.status();
    EXPECT_TRUE(Is(*d, AnyType));
  }
}

TEST(LookupKernelTest, MissingKernelNamesWhatExists) {
  for (int i = 0; i < 2; ++i) {
    absl::StatusOr<const KernelFn*> g = LookupKernel("KernelTestOpA", DeviceType::kGPU, DT_FLOAT);
    ASSERT_FALSE(g.ok());
    EXPECT_EQ(g.status().code(), absl::StatusCode::kNotFound);
    EXPECT_NE(g.status().message().find("no GPU kernel for op 'KernelTestOpA' with dtype float32"),
              std::string::npos)
        << g.status();
    EXPECT_NE(g.status().message().find("CPU/float32"), std::string::npos) << g.status();
  }
}

TEST(LookupKernelTest, ABufferReusedForAnotherNameFindsThatKernel) {
  std::string name = "KernelTestOpA";
  absl::StatusOr<const KernelFn*> a = LookupKernel(name, DeviceType::kCPU, DT_FLOAT);
  ASSERT_TRUE(a.ok()) << a.status();
  EXPECT_TRUE(Is(*a, FloatOnly));
  name.back() = 'B';  // Same address and length; OpB has no float kernel.
  absl::StatusOr<const KernelFn*> b = LookupKernel(name, DeviceType::kCPU, DT_FLOAT);
  ASSERT_TRUE(b.ok()) << b.status();
  EXPECT_TRUE(Is(*b, AnyType));
  name.back() = 'C';
  EXPECT_EQ(LookupKernel(name, DeviceType::kCPU, DT_FLOAT).status().code(),
            absl::StatusCode::kNotFound);
}

// A library loaded late registers while ops run: a lookup cached before
// must not keep answering with the any-dtype kernel.
TEST(LookupKernelTest, ALaterRegistrationReplacesACachedFallback) {
  absl::StatusOr<const KernelFn*> before =
      LookupKernel("KernelTestOpB", DeviceType::kCPU, DT_FLOAT);
  ASSERT_TRUE(before.ok()) << before.status();
  EXPECT_TRUE(Is(*before, AnyType));
  static KernelRegistrar late("KernelTestOpB", DeviceType::kCPU, DT_FLOAT, LateFloat);
  absl::StatusOr<const KernelFn*> after =
      LookupKernel("KernelTestOpB", DeviceType::kCPU, DT_FLOAT);
  ASSERT_TRUE(after.ok()) << after.status();
  EXPECT_TRUE(Is(*after, LateFloat));
}

}  // namespace
}  // namespace tfd
