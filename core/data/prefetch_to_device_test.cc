// PrefetchToDevice on the FakeGpu, whose copies land only when a fence is
// waited for: elements handed out hold the host values (so the wait
// happened before the hand-out), reading runs ahead by buffer_size, host
// devices and strings are left alone, errors pass through, and an iterator
// dropped early stops its thread.
#include "core/data/prefetch_to_device.h"

#include <atomic>
#include <chrono>
#include <memory>
#include <thread>

#include "core/data/transforms.h"
#include "core/framework/fake_gpu_testutil.h"
#include "core/framework/tensor_testutil.h"
#include "gtest/gtest.h"

namespace tfd {
namespace data {
namespace {

using test::AsTensor;
using test::ExpectTensorEqual;
using test::FakeGpu;

DatasetPtr Images(int64_t n) {
  std::vector<float> pixels(n * 6);
  std::vector<int32_t> labels(n);
  for (int64_t i = 0; i < n * 6; ++i) pixels[i] = 0.5f * i - 3.0f;
  for (int64_t i = 0; i < n; ++i) labels[i] = static_cast<int32_t>(i % 10);
  return *FromTensorSlices({AsTensor<float>(pixels, {n, 2, 3}), AsTensor<int32_t>(labels, {n})});
}

// Elements 0, 1, ...: an int64 scalar each, counting the reads; fails at
// `fail_at` when nonnegative; never ends when `n` is negative.
DatasetPtr Counting(std::shared_ptr<std::atomic<int>> reads, int64_t n, int64_t fail_at = -1) {
  return DatasetFromFn("Counting", n < 0 ? kInfiniteCardinality : n, [=]() {
    auto next = std::make_shared<int64_t>(0);
    return absl::StatusOr<std::unique_ptr<Iterator>>(
        IteratorFromFn([=]() -> absl::StatusOr<std::optional<Element>> {
          if (n >= 0 && *next >= n) return std::optional<Element>();
          if (*next == fail_at) return absl::DataLossError("bad record");
          ++*reads;
          return std::optional<Element>(Element{Tensor::Scalar<int64_t>((*next)++)});
        }));
  });
}

bool WaitFor(const std::function<bool()>& done) {
  for (int i = 0; i < 500 && !done(); ++i) {
    std::this_thread::sleep_for(std::chrono::milliseconds(10));
  }
  return done();
}

TEST(PrefetchToDeviceTest, ElementsAreOnTheDeviceWithTheHostValues) {
  FakeGpu* gpu = FakeGpu::Get();
  DatasetPtr batched = *Batch(Images(10), 4, /*drop_remainder=*/false);
  const int waits_before = gpu->fence_waits();
  auto ds = PrefetchToDevice(batched, gpu, 2);
  ASSERT_TRUE(ds.ok()) << ds.status();
  EXPECT_EQ((*ds)->Cardinality(), batched->Cardinality());
  EXPECT_EQ((*ds)->DebugString(), "PrefetchToDevice(" + batched->DebugString() + ", " +
                                      gpu->name() + ")");
  auto got = Collect(*ds);
  auto want = Collect(batched);
  ASSERT_TRUE(got.ok() && want.ok());
  ASSERT_EQ(got->size(), 3u);
  for (size_t i = 0; i < got->size(); ++i) {
    ASSERT_EQ((*got)[i].size(), 2u);
    for (int c = 0; c < 2; ++c) {
      EXPECT_EQ((*got)[i][c].device(), gpu);
      // The FakeGpu lands a copy only when its fence is waited for, so
      // these bytes prove the hand-out waited.
      ExpectTensorEqual((*got)[i][c], (*want)[i][c]);
    }
  }
  EXPECT_EQ(gpu->fence_waits() - waits_before, 6);
}

TEST(PrefetchToDeviceTest, ReadsAheadByBufferSizeAndNoMore) {
  auto reads = std::make_shared<std::atomic<int>>(0);
  auto ds = PrefetchToDevice(Counting(reads, -1), FakeGpu::Get(), 3);
  ASSERT_TRUE(ds.ok());
  auto it = (*ds)->MakeIterator();
  ASSERT_TRUE(it.ok());
  EXPECT_TRUE(WaitFor([&] { return reads->load() == 3; })) << reads->load();
  auto first = (*it)->GetNext();
  ASSERT_TRUE(first.ok() && first->has_value());
  EXPECT_EQ((**first)[0].device(), FakeGpu::Get());
  EXPECT_EQ(test::ToHost((**first)[0]).scalar<int64_t>(), 0);
  EXPECT_TRUE(WaitFor([&] { return reads->load() == 4; })) << reads->load();
  std::this_thread::sleep_for(std::chrono::milliseconds(50));
  EXPECT_EQ(reads->load(), 4) << "read more than buffer_size ahead";
  // Dropping the iterator of an endless dataset stops its thread.
}

TEST(PrefetchToDeviceTest, HostDevicesKeepTheElementsAsTheyAre) {
  DatasetPtr input = Images(3);
  auto ds = PrefetchToDevice(input, HostDevice(), 1);
  ASSERT_TRUE(ds.ok());
  auto got = Collect(*ds);
  auto want = Collect(input);
  ASSERT_TRUE(got.ok() && want.ok());
  ASSERT_EQ(got->size(), 3u);
  for (size_t i = 0; i < 3; ++i) {
    EXPECT_TRUE((*got)[i][0].SharesBufferWith((*want)[i][0])) << "a host element was copied";
  }
}

TEST(PrefetchToDeviceTest, StringsStayOnTheHost) {
  Tensor names(DT_STRING, {2});
  names.flat<std::string>()[0] = "a";
  names.flat<std::string>()[1] = "b";
  auto input = FromTensorSlices({names, AsTensor<float>({1, 2}, {2})});
  ASSERT_TRUE(input.ok());
  auto got = Collect(*PrefetchToDevice(*input, FakeGpu::Get()));
  ASSERT_TRUE(got.ok()) << got.status();
  ASSERT_EQ(got->size(), 2u);
  EXPECT_TRUE((*got)[1][0].device()->host_memory());
  EXPECT_EQ((*got)[1][0].scalar<std::string>(), "b");
  EXPECT_EQ((*got)[1][1].device(), FakeGpu::Get());
  EXPECT_EQ(test::ToHost((*got)[1][1]).scalar<float>(), 2.0f);
}

TEST(PrefetchToDeviceTest, UpstreamErrorPassesThroughOnceThenTheEnd) {
  auto reads = std::make_shared<std::atomic<int>>(0);
  auto ds = PrefetchToDevice(Counting(reads, 10, /*fail_at=*/2), FakeGpu::Get(), 4);
  ASSERT_TRUE(ds.ok());
  auto it = *(*ds)->MakeIterator();
  for (int64_t i = 0; i < 2; ++i) {
    auto e = it->GetNext();
    ASSERT_TRUE(e.ok() && e->has_value());
    EXPECT_EQ(test::ToHost((**e)[0]).scalar<int64_t>(), i);
  }
  auto bad = it->GetNext();
  EXPECT_EQ(bad.status().code(), absl::StatusCode::kDataLoss);
  auto after = it->GetNext();
  ASSERT_TRUE(after.ok());
  EXPECT_FALSE(after->has_value());
  EXPECT_EQ(reads->load(), 2) << "read on after the error";
}

TEST(PrefetchToDeviceTest, BadArguments) {
  DatasetPtr input = Images(2);
  EXPECT_EQ(PrefetchToDevice(nullptr, FakeGpu::Get()).status().code(),
            absl::StatusCode::kInvalidArgument);
  EXPECT_EQ(PrefetchToDevice(input, nullptr).status().code(), absl::StatusCode::kInvalidArgument);
  EXPECT_EQ(PrefetchToDevice(input, FakeGpu::Get(), 0).status().code(),
            absl::StatusCode::kInvalidArgument);
}

TEST(PrefetchToDeviceTest, IteratorDroppedWithCopiesInFlight) {
  FakeGpu* gpu = FakeGpu::Get();
  auto reads = std::make_shared<std::atomic<int>>(0);
  {
    auto ds = *PrefetchToDevice(*Batch(Images(64), 8, false), gpu, 4);
    auto it = *ds->MakeIterator();
    auto e = it->GetNext();
    ASSERT_TRUE(e.ok() && e->has_value());
    EXPECT_TRUE(WaitFor([&] { return gpu->pending_async_copies() >= 8; }));
  }
  // The buffers of the dropped elements are gone; landing their copies
  // now must not write freed memory (ASan would say so).
  EXPECT_TRUE(gpu->Synchronize().ok());
  EXPECT_EQ(gpu->pending_async_copies(), 0);
}

TEST(PrefetchToDeviceTest, EachIteratorStartsOver) {
  auto ds = *PrefetchToDevice(*Batch(Images(4), 2, false), FakeGpu::Get(), 1);
  for (int pass = 0; pass < 2; ++pass) {
    auto got = Collect(ds);
    ASSERT_TRUE(got.ok());
    ASSERT_EQ(got->size(), 2u);
    EXPECT_EQ(test::ToHost((*got)[1][1]).flat<int32_t>()[1], 3);
  }
}

}  // namespace
}  // namespace data
}  // namespace tfd
