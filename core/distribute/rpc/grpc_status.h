// gRPC <-> Abseil status conversion for tfd's gRPC services and clients.
//
// Both libraries use the canonical error codes with the same numbers, so a
// status crosses the wire with its code and message unchanged: a service
// returns ToGrpcStatus(absl_status) and the client gets FromGrpcStatus()
// of what arrived. Client-side failures of the call itself (no server,
// deadline passed) are prefixed with what was being called so that the
// message says which peer did not answer.
//
//   grpc::Status s = stub->Barrier(&context, request, &response);
//   TFD_RETURN_IF_ERROR(FromGrpcStatus(s, "Barrier on coordination service at ", address));
#ifndef TFD_CORE_DISTRIBUTE_RPC_GRPC_STATUS_H_
#define TFD_CORE_DISTRIBUTE_RPC_GRPC_STATUS_H_

#include <string>

#include "absl/status/status.h"
#include "absl/strings/str_cat.h"
#include "grpcpp/support/status.h"

namespace tfd {
namespace rpc {

// The same code and message as a grpc::Status.
grpc::Status ToGrpcStatus(const absl::Status& status);

// The same code and message as an absl::Status; OK stays OK.
absl::Status FromGrpcStatus(const grpc::Status& status);

// FromGrpcStatus, with "<context pieces>: " before the message of an error.
template <typename... Args>
absl::Status FromGrpcStatus(const grpc::Status& status, const Args&... context) {
  if (status.ok()) return absl::OkStatus();
  return absl::Status(static_cast<absl::StatusCode>(status.error_code()),
                      absl::StrCat(context..., ": ", status.error_message()));
}

}  // namespace rpc
}  // namespace tfd

#endif  // TFD_CORE_DISTRIBUTE_RPC_GRPC_STATUS_H_
