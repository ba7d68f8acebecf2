// Expected strings are Python 3's repr() of the same doubles.
#include "core/nn/callbacks/python_float.h"

#include <cmath>
#include <limits>

#include "gtest/gtest.h"

namespace tfd {
namespace nn {
namespace {

TEST(PythonFloatTest, MatchesPythonRepr) {
  const std::vector<std::pair<double, std::string>> cases = {
      {0.0, "0.0"},
      {-0.0, "-0.0"},
      {1.0, "1.0"},
      {100.0, "100.0"},
      {0.5, "0.5"},
      {-2.25, "-2.25"},
      {0.1, "0.1"},
      {static_cast<double>(0.5134f), "0.5134000182151794"},
      {static_cast<double>(0.001f), "0.0010000000474974513"},
      {0.0001, "0.0001"},
      {0.00001, "1e-05"},
      {0.000015, "1.5e-05"},
      {123456789.125, "123456789.125"},
      {1e15, "1000000000000000.0"},
      {1e16, "1e+16"},
      {1.5e16, "1.5e+16"},
      {1e-300, "1e-300"},
      {std::numeric_limits<double>::quiet_NaN(), "nan"},
      {std::numeric_limits<double>::infinity(), "inf"},
      {-std::numeric_limits<double>::infinity(), "-inf"},
  };
  for (const auto& [value, repr] : cases) EXPECT_EQ(PythonFloatRepr(value), repr) << repr;
}

}  // namespace
}  // namespace nn
}  // namespace tfd
