// Distributions over Philox blocks, bit for bit as TensorFlow's
// random_distributions.h computes them, so tfd's random ops produce
// TensorFlow's numbers for the same seeds.
//
// Each distribution turns one draw of its generator into a fixed-size group
// of kResultElementCount outputs:
//   - Uniform floats put random bits in the mantissa of a number in [1, 2)
//     and subtract 1: 23 bits for float (one uint32 each), 52 for double (two
//     uint32s each), 10 for half and 7 for bfloat16 (the low bits of a uint32).
//   - Normals use the basic Box-Muller transform on two uniforms (four
//     uint32s for double), the first clamped to >= 1e-7 before the log; half
//     and bfloat16 are computed in float and rounded.
//   - Truncated normals draw Box-Muller pairs one uint32 at a time and keep
//     values with |x| < 2 until the group is full: the number of draws per
//     group varies (kVariableSamplesPerOutput), so the filler gives every
//     group its own stretch of the sequence; see fill_philox_random.h.
//   - Uniform ints are lo + (bits mod (hi - lo)) with the range unsigned,
//     32 bits per int32 and 64 per int64. (Slightly biased for ranges that do
//     not divide 2^32 or 2^64, as in TensorFlow.)
//
// Header-only and allocation-free; float and double paths are usable from
// CUDA. Not thread-safe per generator; distributions themselves are
// stateless.
#ifndef TFD_CORE_KERNELS_RANDOM_DISTRIBUTIONS_H_
#define TFD_CORE_KERNELS_RANDOM_DISTRIBUTIONS_H_

#include <math.h>

#include <cmath>
#include <cstdint>
#include <cstring>
#include <type_traits>

#include "core/framework/float16.h"
#include "core/kernels/philox.h"

namespace tfd {

// Philox blocks an op reserves per output element, whatever the
// distribution: TensorFlow's kReservedSamplesPerOutput. Truncated normal
// groups are spaced this far apart; stateful ops advance their generator by
// this much per element so that the next call never overlaps.
inline constexpr int kReservedSamplesPerOutput = 256;

// [0, 1) from the low 23 bits of x.
TFD_PHILOX_INLINE float Uint32ToFloat(uint32_t x) {
  const uint32_t bits = (127u << 23) | (x & 0x7fffffu);
  float f;
  std::memcpy(&f, &bits, sizeof(f));
  return f - 1.0f;
}

// [0, 1) from the low 20 bits of x0 (high mantissa) and all of x1.
TFD_PHILOX_INLINE double Uint64ToDouble(uint32_t x0, uint32_t x1) {
  const uint64_t mantissa = (static_cast<uint64_t>(x0 & 0xfffffu) << 32) | x1;
  const uint64_t bits = (uint64_t{1023} << 52) | mantissa;
  double d;
  std::memcpy(&d, &bits, sizeof(d));
  return d - 1.0;
}

// [0, 1) from the low 10 bits of x. k / 1024 is exact in float and in half,
// so computing through float gives TensorFlow's half subtraction exactly.
inline half Uint16ToHalf(uint16_t x) {
  return half(static_cast<float>(x & 0x3ffu) * (1.0f / 1024.0f));
}

// [0, 1) from the low 7 bits of x (exact, as above).
inline bfloat16 Uint16ToBfloat16(uint16_t x) {
  return bfloat16(static_cast<float>(x & 0x7fu) * (1.0f / 128.0f));
}

// Two standard normals from two uniforms. The arithmetic mirrors
// TensorFlow's exactly: the angle is computed in double (2 * M_PI promotes)
// and rounded to float; log, sqrt and sincos are the C library's float
// functions.
TFD_PHILOX_INLINE void BoxMullerFloat(uint32_t x0, uint32_t x1, float* f0, float* f1) {
  const float epsilon = 1.0e-7f;
  float u1 = Uint32ToFloat(x0);
  if (u1 < epsilon) u1 = epsilon;
  const float v1 = static_cast<float>(2.0 * 3.14159265358979323846 *
                                      static_cast<double>(Uint32ToFloat(x1)));
  const float u2 = sqrtf(-2.0f * logf(u1));
#if defined(__linux__) || defined(__CUDACC__)
  sincosf(v1, f0, f1);
#else
  *f0 = sinf(v1);
  *f1 = cosf(v1);
#endif
  *f0 *= u2;
  *f1 *= u2;
}

// Two standard normals from four uint32s (two 52-bit uniforms).
TFD_PHILOX_INLINE void BoxMullerDouble(uint32_t x0, uint32_t x1, uint32_t x2, uint32_t x3,
                                       double* d0, double* d1) {
  const double epsilon = 1.0e-7;
  double u1 = Uint64ToDouble(x0, x1);
  if (u1 < epsilon) u1 = epsilon;
  const double v1 = 2.0 * 3.14159265358979323846 * Uint64ToDouble(x2, x3);
  const double u2 = sqrt(-2.0 * log(u1));
#if defined(__linux__) || defined(__CUDACC__)
  sincos(v1, d0, d1);
#else
  *d0 = sin(v1);
  *d1 = cos(v1);
#endif
  *d0 *= u2;
  *d1 *= u2;
}

// ---- Uniform [0, 1) -------------------------------------------------------

// float, half, bfloat16: one output per uint32.
template <typename T>
struct UniformDistribution {
  static constexpr int kResultElementCount = PhiloxRandom::kResultElementCount;
  static constexpr int kElementCost = 3;
  static constexpr bool kVariableSamplesPerOutput = false;
  using ResultElementType = T;
  using ResultType = PhiloxArray<T, kResultElementCount>;

  static TFD_PHILOX_INLINE T FromBits(uint32_t x) {
    if constexpr (std::is_same_v<T, float>) {
      return Uint32ToFloat(x);
    } else if constexpr (std::is_same_v<T, half>) {
      return Uint16ToHalf(static_cast<uint16_t>(x));
    } else {
      static_assert(std::is_same_v<T, bfloat16>, "uniform: float, double, half, bfloat16");
      return Uint16ToBfloat16(static_cast<uint16_t>(x));
    }
  }

  TFD_PHILOX_INLINE ResultType operator()(PhiloxRandom* gen) const {
    const PhiloxRandom::Block sample = (*gen)();
    ResultType result;
    for (int i = 0; i < kResultElementCount; ++i) result[i] = FromBits(sample[i]);
    return result;
  }
};

template <>
struct UniformDistribution<double> {
  static constexpr int kResultElementCount = PhiloxRandom::kResultElementCount / 2;
  static constexpr int kElementCost = 3;
  static constexpr bool kVariableSamplesPerOutput = false;
  using ResultElementType = double;
  using ResultType = PhiloxArray<double, kResultElementCount>;

  TFD_PHILOX_INLINE ResultType operator()(PhiloxRandom* gen) const {
    const PhiloxRandom::Block sample = (*gen)();
    ResultType result;
    for (int i = 0; i < kResultElementCount; ++i) {
      result[i] = Uint64ToDouble(sample[2 * i], sample[2 * i + 1]);
    }
    return result;
  }
};

// ---- Standard normal ------------------------------------------------------

// float, half, bfloat16: Box-Muller in float, two outputs per uint32 pair.
template <typename T>
struct NormalDistribution {
  static constexpr int kResultElementCount = PhiloxRandom::kResultElementCount;
  static constexpr int kElementCost = 70;
  static constexpr bool kVariableSamplesPerOutput = false;
  using ResultElementType = T;
  using ResultType = PhiloxArray<T, kResultElementCount>;

  TFD_PHILOX_INLINE ResultType operator()(PhiloxRandom* gen) const {
    const PhiloxRandom::Block sample = (*gen)();
    ResultType result;
    for (int i = 0; i < kResultElementCount; i += 2) {
      float f0, f1;
      BoxMullerFloat(sample[i], sample[i + 1], &f0, &f1);
      result[i] = static_cast<T>(f0);
      result[i + 1] = static_cast<T>(f1);
    }
    return result;
  }
};

template <>
struct NormalDistribution<double> {
  static constexpr int kResultElementCount = PhiloxRandom::kResultElementCount / 2;
  static constexpr int kElementCost = 70;
  static constexpr bool kVariableSamplesPerOutput = false;
  using ResultElementType = double;
  using ResultType = PhiloxArray<double, kResultElementCount>;

  TFD_PHILOX_INLINE ResultType operator()(PhiloxRandom* gen) const {
    const PhiloxRandom::Block s = (*gen)();
    ResultType result;
    BoxMullerDouble(s[0], s[1], s[2], s[3], &result[0], &result[1]);
    return result;
  }
};

// ---- Truncated normal (|x| < 2) ---------------------------------------------

// Rejection: draw Box-Muller pairs and keep, in order, each value inside
// the cutoff until the group is full (a pair's second value may be dropped
// when the first completes the group).
template <typename T>
struct TruncatedNormalDistribution {
  static constexpr int kResultElementCount = PhiloxSingleSample::kNativeElementCount;
  static constexpr int kElementCost = 90;
  static constexpr bool kVariableSamplesPerOutput = true;
  using ResultElementType = T;
  using ResultType = PhiloxArray<T, kResultElementCount>;

  TFD_PHILOX_INLINE ResultType operator()(PhiloxSingleSample* gen) const {
    const float kTruncateValue = 2.0f;
    ResultType result;
    int index = 0;
    while (true) {
      const uint32_t x0 = (*gen)();
      const uint32_t x1 = (*gen)();
      float f[2];
      BoxMullerFloat(x0, x1, &f[0], &f[1]);
      for (int i = 0; i < 2; ++i) {
        if (fabsf(f[i]) < kTruncateValue) {
          result[index++] = static_cast<T>(f[i]);
          if (index >= kResultElementCount) return result;
        }
      }
    }
  }
};

template <>
struct TruncatedNormalDistribution<double> {
  static constexpr int kResultElementCount = PhiloxSingleSample::kNativeElementCount / 2;
  static constexpr int kElementCost = 90;
  static constexpr bool kVariableSamplesPerOutput = true;
  using ResultElementType = double;
  using ResultType = PhiloxArray<double, kResultElementCount>;

  TFD_PHILOX_INLINE ResultType operator()(PhiloxSingleSample* gen) const {
    const double kTruncateValue = 2.0;
    ResultType result;
    int index = 0;
    while (true) {
      const uint32_t x0 = (*gen)();
      const uint32_t x1 = (*gen)();
      const uint32_t x2 = (*gen)();
      const uint32_t x3 = (*gen)();
      double d[2];
      BoxMullerDouble(x0, x1, x2, x3, &d[0], &d[1]);
      for (int i = 0; i < 2; ++i) {
        if (fabs(d[i]) < kTruncateValue) {
          result[index++] = d[i];
          if (index >= kResultElementCount) return result;
        }
      }
    }
  }
};

// ---- Uniform integers in [lo, hi) -------------------------------------------

// int32_t (four per block) or int64_t (two per block, low word first).
// Requires lo < hi; the range is kept unsigned because hi - lo can overflow
// the signed type.
template <typename Int>
struct UniformIntDistribution {
  static_assert(std::is_same_v<Int, int32_t> || std::is_same_v<Int, int64_t>,
                "uniform int: int32 or int64");
  using UInt = std::make_unsigned_t<Int>;
  static constexpr int kWords = sizeof(Int) / sizeof(uint32_t);
  static constexpr int kResultElementCount = PhiloxRandom::kResultElementCount / kWords;
  static constexpr int kElementCost = 3;
  static constexpr bool kVariableSamplesPerOutput = false;
  using ResultElementType = Int;
  using ResultType = PhiloxArray<Int, kResultElementCount>;

  TFD_PHILOX_INLINE UniformIntDistribution(Int lo, Int hi)
      : lo_(lo), range_(static_cast<UInt>(hi) - static_cast<UInt>(lo)) {}

  TFD_PHILOX_INLINE ResultType operator()(PhiloxRandom* gen) const {
    const PhiloxRandom::Block sample = (*gen)();
    ResultType result;
    for (int i = 0; i < kResultElementCount; ++i) {
      UInt bits = sample[kWords * i];
      if constexpr (kWords == 2) bits |= static_cast<UInt>(sample[2 * i + 1]) << 32;
      // lo + offset wraps in unsigned arithmetic; the true sum is in range.
      result[i] = static_cast<Int>(static_cast<UInt>(lo_) + bits % range_);
    }
    return result;
  }

 private:
  Int lo_;
  UInt range_;
};

}  // namespace tfd

#endif  // TFD_CORE_KERNELS_RANDOM_DISTRIBUTIONS_H_
