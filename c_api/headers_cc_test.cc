// The public headers compile as C++17 with -Wall -Werror, and C++ callers
// see the same behaviour (a tensor outliving its TF_Tensor handle).
#include "tensorflow/c/c_api.h"
#include "tfd/c_api.h"

#include "c_api/internal/c_structs.h"
#include "gtest/gtest.h"

namespace {

TEST(CApiHeadersTest, TensorMemoryLivesWhileTfdHoldsIt) {
  static int released = 0;
  float* data = new float[2]{1, 2};
  int64_t dims[1] = {2};
  TF_Tensor* t = TF_NewTensor(
      TF_FLOAT, dims, 1, data, sizeof(float) * 2,
      [](void* p, size_t, void*) {
        delete[] static_cast<float*>(p);
        ++released;
      },
      nullptr);
  ASSERT_NE(t, nullptr);
  tfd::Tensor held = t->tensor;  // As a running computation would hold it.
  EXPECT_EQ(TF_TensorMaybeMove(t), nullptr);  // Shared now.
  TF_DeleteTensor(t);
  EXPECT_EQ(released, 0);
  EXPECT_EQ(held.data<float>()[1], 2.0f);
  held = tfd::Tensor();
  EXPECT_EQ(released, 1);
}

TEST(CApiHeadersTest, StatusConversionKeepsCodeAndMessage) {
  TF_Status* s = TF_NewStatus();
  tfd::capi::SetStatus(absl::DataLossError("bad crc in x.index"), s);
  EXPECT_EQ(TF_GetCode(s), TF_DATA_LOSS);
  EXPECT_STREQ(TF_Message(s), "bad crc in x.index");
  EXPECT_EQ(tfd::capi::ToStatus(s).code(), absl::StatusCode::kDataLoss);
  tfd::capi::SetStatus(absl::OkStatus(), s);
  EXPECT_EQ(TF_GetCode(s), TF_OK);
  EXPECT_TRUE(tfd::capi::ToStatus(s).ok());
  TF_DeleteStatus(s);
}

}  // namespace
