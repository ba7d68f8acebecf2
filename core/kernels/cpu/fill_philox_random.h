// Fills a buffer from a Philox generator through a distribution, in
// parallel, with the numbers TensorFlow's FillPhiloxRandom (CPU) gives.
//
// The output is cut into groups of Dist::kResultElementCount elements; group
// g is always made from the same generator position, so element i is the
// same number however the groups are split between threads:
//   - fixed-draw distributions (uniform, normal, int) use exactly one block
//     per group: group g starts at block base + g;
//   - variable-draw ones (truncated normal) get a stretch of
//     kResultElementCount * kReservedSamplesPerOutput / 4 blocks per group:
//     group g starts at block base + g * that, and draws numbers one at a
//     time from there (a group needing more than its stretch would overlap
//     the next group's; at 256 samples per output that is astronomically
//     unlikely).
// A last partial group is computed whole and truncated.
//
//   FillPhiloxRandom(pool, gen, out, n, NormalDistribution<float>());
#ifndef TFD_CORE_KERNELS_CPU_FILL_PHILOX_RANDOM_H_
#define TFD_CORE_KERNELS_CPU_FILL_PHILOX_RANDOM_H_

#include <algorithm>
#include <cstdint>

#include "core/device/cpu/thread_pool.h"
#include "core/kernels/philox.h"
#include "core/kernels/random_distributions.h"

namespace tfd {

// Number of groups covering `size` elements.
template <class Dist>
int64_t PhiloxGroupCount(int64_t size) {
  return (size + Dist::kResultElementCount - 1) / Dist::kResultElementCount;
}

// Groups [begin_group, end_group) of a `size`-element output. Writes
// data[begin_group * group size, min(end_group * group size, size)).
template <class Dist>
void FillPhiloxRandomGroups(const PhiloxRandom& base, typename Dist::ResultElementType* data,
                            int64_t size, int64_t begin_group, int64_t end_group,
                            const Dist& dist) {
  constexpr int kGroupSize = Dist::kResultElementCount;
  for (int64_t g = begin_group; g < end_group; ++g) {
    typename Dist::ResultType samples;
    if constexpr (Dist::kVariableSamplesPerOutput) {
      constexpr int64_t kBlocksPerGroup =
          int64_t{kGroupSize} * kReservedSamplesPerOutput / PhiloxRandom::kResultElementCount;
      PhiloxRandom gen = base;
      gen.Skip(static_cast<uint64_t>(g) * kBlocksPerGroup);
      PhiloxSingleSample single(&gen);
      samples = dist(&single);
    } else {
      PhiloxRandom gen = base;
      gen.Skip(static_cast<uint64_t>(g));
      samples = dist(&gen);
    }
    const int64_t offset = g * kGroupSize;
    const int64_t count = std::min<int64_t>(kGroupSize, size - offset);
    std::copy(&samples[0], &samples[0] + count, data + offset);
  }
}

// All of data[0, size), sharded over `pool` (inline when null).
template <class Dist>
void FillPhiloxRandom(ThreadPool* pool, const PhiloxRandom& base,
                      typename Dist::ResultElementType* data, int64_t size, const Dist& dist) {
  const int64_t groups = PhiloxGroupCount<Dist>(size);
  auto fill = [&](int64_t begin, int64_t end) {
    FillPhiloxRandomGroups(base, data, size, begin, end, dist);
  };
  if (pool == nullptr) {
    fill(0, groups);
    return;
  }
  pool->ParallelFor(groups, int64_t{Dist::kElementCost} * Dist::kResultElementCount, fill);
}

}  // namespace tfd

#endif  // TFD_CORE_KERNELS_CPU_FILL_PHILOX_RANDOM_H_
