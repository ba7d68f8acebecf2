// Tensor::CopyTo between two devices outside host memory: directly when
// the destination can copy from the source (Device::CopyFromPeer), through
// host memory otherwise.
#include <cstring>
#include <string>
#include <vector>

#include "core/framework/device.h"
#include "core/framework/tensor.h"
#include "core/framework/tensor_testutil.h"
#include "gtest/gtest.h"

namespace tfd {
namespace {

// A GPU-typed device over host memory that counts its copies.
class CountingGpu : public Device {
 public:
  CountingGpu(int id, bool reaches_peers) : Device(DeviceType::kGPU, id), reaches_(reaches_peers) {}

  Allocator* allocator() override { return HostDevice()->allocator(); }
  absl::Status CopyHostToDevice(const void* src, void* dst, size_t n) override {
    ++to_device;
    if (n > 0) std::memcpy(dst, src, n);
    return absl::OkStatus();
  }
  absl::Status CopyDeviceToHost(const void* src, void* dst, size_t n) override {
    ++to_host;
    if (n > 0) std::memcpy(dst, src, n);
    return absl::OkStatus();
  }
  absl::Status CopyDeviceToDevice(const void* src, void* dst, size_t n) override {
    if (n > 0) std::memcpy(dst, src, n);
    return absl::OkStatus();
  }
  absl::Status Memset(void* dst, int value, size_t n) override {
    if (n > 0) std::memset(dst, value, n);
    return absl::OkStatus();
  }
  bool CanCopyFromPeer(Device* from) override {
    return reaches_ && from != nullptr && from->type() == DeviceType::kGPU;
  }
  absl::Status CopyFromPeer(Device* from, const void* src, void* dst, size_t n) override {
    ++from_peer;
    last_from = from;
    if (n > 0) std::memcpy(dst, src, n);
    return absl::OkStatus();
  }

  int to_device = 0, to_host = 0, from_peer = 0;
  Device* last_from = nullptr;

 private:
  const bool reaches_;
};

TEST(TensorPeerCopyTest, ReachableDevicesCopyDirectly) {
  CountingGpu a(0, true), b(1, true);
  const Tensor host = test::AsTensor<float>({1, 2, 3, 4}, {4});
  absl::StatusOr<Tensor> on_a = host.CopyTo(&a);
  ASSERT_TRUE(on_a.ok()) << on_a.status();
  absl::StatusOr<Tensor> on_b = on_a->CopyTo(&b);
  ASSERT_TRUE(on_b.ok()) << on_b.status();
  EXPECT_EQ(on_b->device(), &b);
  EXPECT_EQ(b.from_peer, 1);
  EXPECT_EQ(b.last_from, &a);
  // Nothing went through the host.
  EXPECT_EQ(a.to_host, 0);
  EXPECT_EQ(b.to_device, 0);
  test::ExpectTensorEqual(*on_b->CopyTo(HostDevice()), host);
}

TEST(TensorPeerCopyTest, UnreachableDevicesStageThroughTheHost) {
  CountingGpu a(0, false), b(1, false);
  const Tensor host = test::AsTensor<int32_t>({5, 6, 7}, {3});
  absl::StatusOr<Tensor> on_a = host.CopyTo(&a);
  ASSERT_TRUE(on_a.ok()) << on_a.status();
  absl::StatusOr<Tensor> on_b = on_a->CopyTo(&b);
  ASSERT_TRUE(on_b.ok()) << on_b.status();
  EXPECT_EQ(b.from_peer, 0);
  EXPECT_EQ(a.to_host, 1);
  EXPECT_EQ(b.to_device, 1);
  test::ExpectTensorEqual(*on_b->CopyTo(HostDevice()), host);
}

TEST(TensorPeerCopyTest, TheDefaultDeviceHasNoPeerCopies) {
  // A device that does not override them stages, and says why if asked.
  class Plain : public CountingGpu {
   public:
    Plain() : CountingGpu(2, false) {}
    bool CanCopyFromPeer(Device* from) override { return Device::CanCopyFromPeer(from); }
    absl::Status CopyFromPeer(Device* from, const void* src, void* dst, size_t n) override {
      return Device::CopyFromPeer(from, src, dst, n);
    }
  } plain;
  CountingGpu other(3, true);
  EXPECT_FALSE(plain.CanCopyFromPeer(&other));
  char byte = 0;
  const absl::Status s = plain.CopyFromPeer(&other, &byte, &byte, 1);
  EXPECT_EQ(s.code(), absl::StatusCode::kFailedPrecondition) << s;
  EXPECT_NE(s.message().find("/device:GPU:3"), std::string::npos) << s;
}

}  // namespace
}  // namespace tfd
