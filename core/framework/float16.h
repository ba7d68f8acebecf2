// 16-bit floating-point storage types: IEEE half (DT_HALF) and bfloat16
// (DT_BFLOAT16). They are storage formats: arithmetic converts to float.
// Conversions round to nearest even, as TensorFlow's do.
#ifndef TFD_CORE_FRAMEWORK_FLOAT16_H_
#define TFD_CORE_FRAMEWORK_FLOAT16_H_

#include <cstdint>
#include <cstring>

namespace tfd {

namespace internal {
inline uint32_t FloatBits(float f) {
  uint32_t u;
  std::memcpy(&u, &f, 4);
  return u;
}
inline float BitsToFloat(uint32_t u) {
  float f;
  std::memcpy(&f, &u, 4);
  return f;
}
}  // namespace internal

struct bfloat16 {
  uint16_t bits = 0;

  bfloat16() = default;
  explicit bfloat16(float f) {
    uint32_t u = internal::FloatBits(f);
    if ((u & 0x7fffffffu) > 0x7f800000u) {  // NaN: keep it a quiet NaN.
      bits = static_cast<uint16_t>((u >> 16) | 0x40);
      return;
    }
    u += 0x7fffu + ((u >> 16) & 1u);  // Round to nearest even.
    bits = static_cast<uint16_t>(u >> 16);
  }
  explicit operator float() const {
    return internal::BitsToFloat(static_cast<uint32_t>(bits) << 16);
  }
};

struct half {
  uint16_t bits = 0;

  half() = default;
  explicit half(float f) {
    const uint32_t u = internal::FloatBits(f);
    const uint32_t sign = (u >> 16) & 0x8000u;
    const uint32_t abs = u & 0x7fffffffu;
    if (abs > 0x7f800000u) {  // NaN
      bits = static_cast<uint16_t>(sign | 0x7e00u);
    } else if (abs >= 0x477ff000u) {  // Rounds to >= 65520: infinity.
      bits = static_cast<uint16_t>(sign | 0x7c00u);
    } else if (abs < 0x38800000u) {  // Subnormal half (or zero).
      // Adding 0.5 shifts the value so the float adder rounds to nearest
      // even at the half-subnormal quantum (2^-24).
      const float shifted = internal::BitsToFloat(abs) + 0.5f;
      bits = static_cast<uint16_t>(sign |
                                   (internal::FloatBits(shifted) - 0x3f000000u));
    } else {
      const uint32_t mant_odd = (abs >> 13) & 1u;
      const uint32_t rounded = abs + 0xc8000fffu + mant_odd;  // rebias + round
      bits = static_cast<uint16_t>(sign | (rounded >> 13));
    }
  }
  explicit operator float() const {
    const uint32_t sign = static_cast<uint32_t>(bits & 0x8000u) << 16;
    const uint32_t exp = (bits >> 10) & 0x1fu;
    const uint32_t mant = bits & 0x3ffu;
    if (exp == 0x1f) {  // Inf or NaN.
      return internal::BitsToFloat(sign | 0x7f800000u | (mant << 13));
    }
    if (exp == 0) {  // Zero or subnormal: mant * 2^-24.
      const float f = static_cast<float>(mant) * 5.9604644775390625e-8f;
      return internal::BitsToFloat(sign | internal::FloatBits(f));
    }
    return internal::BitsToFloat(sign | ((exp + 112u) << 23) | (mant << 13));
  }
};

}  // namespace tfd

#endif  // TFD_CORE_FRAMEWORK_FLOAT16_H_
