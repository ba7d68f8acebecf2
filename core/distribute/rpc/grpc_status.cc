#include "core/distribute/rpc/grpc_status.h"

#include <string>

namespace tfd {
namespace rpc {

// grpc::StatusCode and absl::StatusCode both number the canonical codes
// 0..16 the same way (google.rpc.Code), so the casts below are exact.
grpc::Status ToGrpcStatus(const absl::Status& status) {
  if (status.ok()) return grpc::Status::OK;
  return grpc::Status(static_cast<grpc::StatusCode>(status.code()),
                      std::string(status.message()));
}

absl::Status FromGrpcStatus(const grpc::Status& status) {
  if (status.ok()) return absl::OkStatus();
  return absl::Status(static_cast<absl::StatusCode>(status.error_code()),
                      status.error_message());
}

}  // namespace rpc
}  // namespace tfd
