#include "core/framework/types.h"

#include <cmath>

#include "gtest/gtest.h"

namespace tfd {
namespace {

TEST(TypesTest, EnumNumbersAreTensorFlows) {
  // These numbers are on disk in every checkpoint and GraphDef.
  EXPECT_EQ(DT_FLOAT, 1);
  EXPECT_EQ(DT_DOUBLE, 2);
  EXPECT_EQ(DT_INT32, 3);
  EXPECT_EQ(DT_STRING, 7);
  EXPECT_EQ(DT_INT64, 9);
  EXPECT_EQ(DT_BOOL, 10);
  EXPECT_EQ(DT_BFLOAT16, 14);
  EXPECT_EQ(DT_HALF, 19);
  EXPECT_EQ(DT_RESOURCE, 20);
}

TEST(TypesTest, SizesAndNames) {
  EXPECT_EQ(DataTypeSize(DT_FLOAT), 4u);
  EXPECT_EQ(DataTypeSize(DT_BFLOAT16), 2u);
  EXPECT_EQ(DataTypeSize(DT_INT64), 8u);
  EXPECT_EQ(DataTypeSize(DT_STRING), 0u);
  EXPECT_EQ(DataTypeSize(DT_COMPLEX64), 8u);
  EXPECT_EQ(DataTypeSize(DT_COMPLEX128), 16u);
  EXPECT_EQ(DataTypeName(DT_HALF), "float16");
  DataType t;
  ASSERT_TRUE(DataTypeFromName("bfloat16", &t));
  EXPECT_EQ(t, DT_BFLOAT16);
  ASSERT_TRUE(DataTypeFromName("float", &t));
  EXPECT_EQ(t, DT_FLOAT);
  EXPECT_FALSE(DataTypeFromName("float31", &t));
}

TEST(TypesTest, ObjectTypesAreHostOnly) {
  EXPECT_TRUE(IsHostOnlyType(DT_STRING));
  EXPECT_TRUE(IsHostOnlyType(DT_RESOURCE));
  EXPECT_TRUE(IsHostOnlyType(DT_VARIANT));
  for (DataType plain : {DT_FLOAT, DT_HALF, DT_BFLOAT16, DT_INT64, DT_UINT8, DT_BOOL,
                         DT_COMPLEX64, DT_INVALID}) {
    EXPECT_FALSE(IsHostOnlyType(plain)) << DataTypeName(plain);
  }
}

TEST(Float16Test, HalfRoundTripsAndRounds) {
  for (float f : {0.0f, -0.0f, 1.0f, -2.5f, 65504.0f, 6.103515625e-05f, 5.9604645e-08f}) {
    EXPECT_EQ(static_cast<float>(half(f)), f) << f;
  }
  // 1 + 2^-11 is exactly halfway between 1 and the next half: ties to even.
  EXPECT_EQ(half(1.0f + 1.0f / 2048).bits, 0x3c00);
  EXPECT_EQ(half(1.0f + 3.0f / 2048).bits, 0x3c02);
  EXPECT_EQ(half(70000.0f).bits, 0x7c00);  // Overflows to +inf.
  EXPECT_TRUE(std::isnan(static_cast<float>(half(NAN))));
  EXPECT_EQ(half(1e-10f).bits, 0);  // Underflows to zero.
}

TEST(Float16Test, Bfloat16RoundsToNearestEven) {
  EXPECT_EQ(static_cast<float>(bfloat16(1.0f)), 1.0f);
  EXPECT_EQ(bfloat16(1.0f).bits, 0x3f80);
  // 1 + 2^-8 is halfway between 1 and 1 + 2^-7: ties to even (1).
  EXPECT_EQ(bfloat16(1.0f + 1.0f / 256).bits, 0x3f80);
  EXPECT_EQ(bfloat16(1.0f + 3.0f / 256).bits, 0x3f82);
  EXPECT_TRUE(std::isnan(static_cast<float>(bfloat16(NAN))));
}

}  // namespace
}  // namespace tfd
