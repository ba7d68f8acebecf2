// A server and a client of a generated gRPC service on localhost: the
// macro in tools/bazel/grpc.bzl, Debian's protoc plugin and libgrpc++ work
// together.
#include <atomic>
#include <memory>
#include <string>

#include "grpcpp/grpcpp.h"
#include "gtest/gtest.h"
#include "tests/third_party/echo_service.grpc.pb.h"

namespace tfd {
namespace {

class EchoService final : public testing::Echo::Service {
 public:
  grpc::Status Say(grpc::ServerContext*, const testing::EchoRequest* request,
                   testing::EchoResponse* response) override {
    if (request->text().empty()) {
      return grpc::Status(grpc::StatusCode::INVALID_ARGUMENT, "nothing to echo");
    }
    response->set_text("echo: " + request->text());
    response->set_calls(++calls_);
    return grpc::Status::OK;
  }

 private:
  std::atomic<int> calls_{0};
};

class GrpcServiceTest : public ::testing::Test {
 protected:
  void SetUp() override {
    grpc::ServerBuilder builder;
    // Port 0: the kernel picks a free port and reports it.
    builder.AddListeningPort("127.0.0.1:0", grpc::InsecureServerCredentials(), &port_);
    builder.RegisterService(&service_);
    server_ = builder.BuildAndStart();
    ASSERT_NE(server_, nullptr);
    ASSERT_GT(port_, 0);
    stub_ = testing::Echo::NewStub(grpc::CreateChannel(
        "127.0.0.1:" + std::to_string(port_), grpc::InsecureChannelCredentials()));
  }
  void TearDown() override {
    if (server_ != nullptr) server_->Shutdown();
  }

  EchoService service_;
  int port_ = 0;
  std::unique_ptr<grpc::Server> server_;
  std::unique_ptr<testing::Echo::Stub> stub_;
};

TEST_F(GrpcServiceTest, ClientCallsServerOnLocalhost) {
  for (int i = 1; i <= 3; ++i) {
    grpc::ClientContext context;
    context.set_deadline(std::chrono::system_clock::now() + std::chrono::seconds(10));
    testing::EchoRequest request;
    request.set_text("hello " + std::to_string(i));
    testing::EchoResponse response;
    grpc::Status status = stub_->Say(&context, request, &response);
    ASSERT_TRUE(status.ok()) << status.error_message();
    EXPECT_EQ(response.text(), "echo: hello " + std::to_string(i));
    EXPECT_EQ(response.calls(), i);
  }
}

TEST_F(GrpcServiceTest, ServerErrorsReachTheClient) {
  grpc::ClientContext context;
  context.set_deadline(std::chrono::system_clock::now() + std::chrono::seconds(10));
  testing::EchoResponse response;
  grpc::Status status = stub_->Say(&context, testing::EchoRequest(), &response);
  EXPECT_EQ(status.error_code(), grpc::StatusCode::INVALID_ARGUMENT);
  EXPECT_EQ(status.error_message(), "nothing to echo");
}

TEST_F(GrpcServiceTest, NoServerIsUnavailableWithinTheDeadline) {
  server_->Shutdown();
  server_.reset();
  grpc::ClientContext context;
  context.set_deadline(std::chrono::system_clock::now() + std::chrono::milliseconds(500));
  testing::EchoRequest request;
  request.set_text("anyone?");
  testing::EchoResponse response;
  grpc::Status status = stub_->Say(&context, request, &response);
  EXPECT_TRUE(status.error_code() == grpc::StatusCode::UNAVAILABLE ||
              status.error_code() == grpc::StatusCode::DEADLINE_EXCEEDED)
      << status.error_code() << " " << status.error_message();
}

}  // namespace
}  // namespace tfd
