#include "core/distribute/rpc/grpc_status.h"

#include "gtest/gtest.h"

namespace tfd {
namespace rpc {
namespace {

TEST(GrpcStatusTest, CodesAndMessagesRoundTrip) {
  const absl::StatusCode codes[] = {
      absl::StatusCode::kCancelled,        absl::StatusCode::kInvalidArgument,
      absl::StatusCode::kDeadlineExceeded, absl::StatusCode::kNotFound,
      absl::StatusCode::kAlreadyExists,    absl::StatusCode::kPermissionDenied,
      absl::StatusCode::kFailedPrecondition, absl::StatusCode::kAborted,
      absl::StatusCode::kUnimplemented,    absl::StatusCode::kInternal,
      absl::StatusCode::kUnavailable,      absl::StatusCode::kDataLoss,
  };
  for (absl::StatusCode code : codes) {
    absl::Status original(code, "task /job:worker/replica:0/task:1 is late");
    grpc::Status wire = ToGrpcStatus(original);
    EXPECT_EQ(static_cast<int>(wire.error_code()), static_cast<int>(code));
    EXPECT_EQ(FromGrpcStatus(wire), original);
  }
}

TEST(GrpcStatusTest, OkStaysOk) {
  EXPECT_TRUE(ToGrpcStatus(absl::OkStatus()).ok());
  EXPECT_TRUE(FromGrpcStatus(grpc::Status::OK).ok());
  EXPECT_TRUE(FromGrpcStatus(grpc::Status::OK, "Barrier at ", "a:1").ok());
}

TEST(GrpcStatusTest, ContextPrefixesTheMessage) {
  absl::Status status = FromGrpcStatus(
      grpc::Status(grpc::StatusCode::UNAVAILABLE, "connection refused"), "Register at ",
      "127.0.0.1:5000");
  EXPECT_EQ(status.code(), absl::StatusCode::kUnavailable);
  EXPECT_EQ(status.message(), "Register at 127.0.0.1:5000: connection refused");
}

}  // namespace
}  // namespace rpc
}  // namespace tfd
