// The worker's server over real gRPC on localhost, called as the
// coordinator calls it: iterators made, read, released; step arguments.
#include "core/distribute/ps/worker_server.h"

#include <memory>
#include <string>
#include <thread>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/synchronization/notification.h"
#include "absl/time/clock.h"
#include "core/data/transforms.h"
#include "core/distribute/ps/float_tensor.h"
#include "core/distribute/ps/ps_service.grpc.pb.h"
#include "core/framework/status.h"
#include "gmock/gmock.h"
#include "grpcpp/grpcpp.h"
#include "gtest/gtest.h"

namespace tfd {
namespace ps {
namespace {

using ::testing::HasSubstr;

class WorkerServerTest : public ::testing::Test {
 protected:
  void SetUp() override {
    WorkerFunctions functions;
    // 0, 1, 2, ... 9.
    functions.datasets["numbers"] = []() -> absl::StatusOr<data::DatasetPtr> {
      std::vector<float> values;
      for (int k = 0; k < 10; ++k) values.push_back(static_cast<float>(k));
      TFD_ASSIGN_OR_RETURN(Tensor t, Tensor::FromVector<float>(values, TensorShape({10})));
      return data::FromTensorSlices({t});
    };
    // The iterator's next number plus the sum of the arguments' first
    // values; waits for `release_step_` when the first argument is -1.
    functions.steps["next"] = [this](data::Iterator* it, const std::vector<Tensor>& arguments)
        -> absl::StatusOr<std::vector<Tensor>> {
      if (it == nullptr) return InvalidArgument("next needs an iterator");
      float added = 0;
      for (const Tensor& a : arguments) added += a.flat<float>()[0];
      if (!arguments.empty() && arguments[0].flat<float>()[0] == -1) {
        step_started_.Notify();
        release_step_.WaitForNotificationWithTimeout(absl::Seconds(10));
        added = 0;
      }
      TFD_ASSIGN_OR_RETURN(std::optional<data::Element> element, it->GetNext());
      if (!element) return absl::OutOfRangeError("no more numbers");
      return std::vector<Tensor>{Tensor::Scalar<float>((*element)[0].scalar<float>() + added)};
    };
    auto server = StartWorkerServer("127.0.0.1:0", std::move(functions));
    ASSERT_TRUE(server.ok()) << server.status();
    server_ = *std::move(server);
    stub_ = WorkerService::NewStub(grpc::CreateChannel(absl::StrCat("127.0.0.1:", server_->port()),
                                                       grpc::InsecureChannelCredentials()));
  }

  grpc::Status Make(int64_t id) {
    MakeIteratorRequest request;
    request.set_dataset("numbers");
    request.set_iterator_id(id);
    MakeIteratorResponse response;
    grpc::ClientContext context;
    context.set_deadline(absl::ToChronoTime(absl::Now() + absl::Seconds(10)));
    return stub_->MakeIterator(&context, request, &response);
  }

  // Whether the worker had it; false also for a failed call.
  bool Release(int64_t id) {
    ReleaseIteratorRequest request;
    request.set_iterator_id(id);
    ReleaseIteratorResponse response;
    grpc::ClientContext context;
    context.set_deadline(absl::ToChronoTime(absl::Now() + absl::Seconds(10)));
    const grpc::Status call = stub_->ReleaseIterator(&context, request, &response);
    EXPECT_TRUE(call.ok()) << call.error_message();
    return call.ok() && response.released();
  }

  // "next" on iterator `id` with scalar arguments: its output, or the error.
  absl::StatusOr<float> Next(int64_t id, const std::vector<float>& arguments = {}) {
    RunFunctionRequest request;
    request.set_function("next");
    request.set_iterator_id(id);
    for (float a : arguments) {
      TFD_ASSIGN_OR_RETURN(*request.add_arguments(), ToProto(Tensor::Scalar<float>(a)));
    }
    RunFunctionResponse response;
    grpc::ClientContext context;
    context.set_deadline(absl::ToChronoTime(absl::Now() + absl::Seconds(10)));
    const grpc::Status call = stub_->RunFunction(&context, request, &response);
    if (!call.ok()) return absl::UnavailableError(call.error_message());
    if (response.error_code() != 0) {
      return absl::Status(static_cast<absl::StatusCode>(response.error_code()),
                          response.error_message());
    }
    if (response.outputs_size() != 1) return Internal("next returned ", response.outputs_size());
    TFD_ASSIGN_OR_RETURN(Tensor out, FromProto(response.outputs(0)));
    return out.scalar<float>();
  }

  absl::Notification step_started_, release_step_;
  std::unique_ptr<WorkerServer> server_;
  std::unique_ptr<WorkerService::Stub> stub_;
};

TEST_F(WorkerServerTest, KeepsEachIteratorUntilItIsReleased) {
  ASSERT_TRUE(Make(1).ok());
  ASSERT_TRUE(Make(2).ok());
  EXPECT_EQ(server_->num_live_iterators(), 2);
  EXPECT_EQ(*Next(1), 0);
  EXPECT_EQ(*Next(1), 1);
  EXPECT_EQ(*Next(2), 0);
  EXPECT_TRUE(Release(1));
  EXPECT_EQ(server_->num_live_iterators(), 1);
  auto released = Next(1);
  EXPECT_EQ(released.status().code(), absl::StatusCode::kNotFound);
  EXPECT_THAT(released.status().message(), HasSubstr("released"));
  EXPECT_EQ(*Next(2), 1);  // the other one goes on
  // Unknown ids (a worker restarted since) are no error.
  EXPECT_FALSE(Release(1));
  EXPECT_FALSE(Release(77));
  EXPECT_TRUE(Release(2));
  EXPECT_EQ(server_->num_live_iterators(), 0);
}

TEST_F(WorkerServerTest, MakingAnIdAgainStartsItOver) {
  ASSERT_TRUE(Make(3).ok());
  EXPECT_EQ(*Next(3), 0);
  ASSERT_TRUE(Make(3).ok());
  EXPECT_EQ(server_->num_live_iterators(), 1);
  EXPECT_EQ(*Next(3), 0);
}

TEST_F(WorkerServerTest, StepsGetTheirArguments) {
  ASSERT_TRUE(Make(1).ok());
  EXPECT_EQ(*Next(1, {10}), 10);
  EXPECT_EQ(*Next(1, {10, 100}), 111);
}

// A release does not wait for a running step; the iterator that step
// reads stays with it until it ends.
TEST_F(WorkerServerTest, ReleaseDuringAStepLeavesTheStepItsIterator) {
  ASSERT_TRUE(Make(1).ok());
  absl::StatusOr<float> blocked = absl::UnknownError("not run");
  std::thread step([&] { blocked = Next(1, {-1}); });
  ASSERT_TRUE(step_started_.WaitForNotificationWithTimeout(absl::Seconds(10)));
  const absl::Time start = absl::Now();
  EXPECT_TRUE(Release(1));
  EXPECT_LT(absl::Now() - start, absl::Seconds(5));
  EXPECT_EQ(server_->num_live_iterators(), 0);
  release_step_.Notify();
  step.join();
  ASSERT_TRUE(blocked.ok()) << blocked.status();
  EXPECT_EQ(*blocked, 0);
}

}  // namespace
}  // namespace ps
}  // namespace tfd
