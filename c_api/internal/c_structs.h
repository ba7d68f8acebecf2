// The structs behind the C API's opaque handles. Only c_api/ sees them.
#ifndef TFD_C_API_INTERNAL_C_STRUCTS_H_
#define TFD_C_API_INTERNAL_C_STRUCTS_H_

#include <string>

#include "absl/status/status.h"
#include "core/framework/tensor.h"
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

// Status <-> TF_Status; the codes share their numbers. `out` may be null
// (the caller asked not to hear about errors).
void SetStatus(const absl::Status& status, TF_Status* out);
absl::Status ToStatus(const TF_Status* status);

}  // namespace capi
}  // namespace tfd

#endif  // TFD_C_API_INTERNAL_C_STRUCTS_H_
