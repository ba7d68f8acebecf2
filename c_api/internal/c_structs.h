// The structs behind the C API's opaque handles. Only c_api/ sees them.
#ifndef TFD_C_API_INTERNAL_C_STRUCTS_H_
#define TFD_C_API_INTERNAL_C_STRUCTS_H_

#include <cstring>
#include <string>

#include "absl/status/status.h"
#include "core/framework/tensor.h"
#include "tensorflow/c/tf_datatype.h"
#include "tensorflow/c/tf_status.h"

struct TF_Status {
  TF_Code code = TF_OK;
  std::string message;
};

struct TF_Tensor {
  tfd::Tensor tensor;
};

namespace tfd {
namespace capi {

// The tfd dtype a caller passed. C lets callers pass any int as a
// TF_DataType, beyond the range of the C++ enum, so the value is copied out
// as bytes rather than read as the enum (which would be undefined).
inline DataType ToDataType(const TF_DataType& dtype) {
  static_assert(sizeof(TF_DataType) == sizeof(int), "TF_DataType is an int");
  int value;
  std::memcpy(&value, &dtype, sizeof(value));
  return static_cast<DataType>(value);
}

// Status <-> TF_Status; the codes share their numbers. `out` may be null
// (the caller asked not to hear about errors).
void SetStatus(const absl::Status& status, TF_Status* out);
absl::Status ToStatus(const TF_Status* status);

}  // namespace capi
}  // namespace tfd

#endif  // TFD_C_API_INTERNAL_C_STRUCTS_H_
