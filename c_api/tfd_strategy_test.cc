// TFD_NewStrategy's multi-worker strategy in one process: without a
// cluster it is a job of one; a bad TF_CONFIG or bad options are refused
// before joining; a worker that never starts fails the start-up in time,
// naming it; "local_devices" picks the CPU or every GPU of the process;
// TPUs stay UNIMPLEMENTED through C. The two-process job is
// tests/multiworker:capi_fit_multiworker_test, parameter servers
// tfd_parameter_server_test.
#include <cstdlib>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/time/clock.h"
#include "c_api/c_api_testutil.h"
#include "core/device/device_registry.h"
#include "core/distribute/testing/free_port.h"
#include "gtest/gtest.h"
#include "tfd/c_api.h"

namespace tfd {
namespace capi {
namespace {

using testing::Status;

// TF_CONFIG for worker 0 of a localhost job on `ports`.
std::string TfConfig(const std::vector<int>& ports) {
  std::string workers;
  for (int port : ports) {
    absl::StrAppend(&workers, workers.empty() ? "" : ", ", "\"localhost:", port, "\"");
  }
  return absl::StrCat(R"({"cluster": {"worker": [)", workers,
                      R"(]}, "task": {"type": "worker", "index": 0}})");
}

TEST(TfdStrategyTest, MultiWorkerWithoutAClusterIsAJobOfOne) {
  unsetenv("TF_CONFIG");
  Status s;
  TFD_Strategy* strategy = TFD_NewStrategy("MultiWorkerMirroredStrategy", nullptr, s);
  ASSERT_TF_OK(s);
  EXPECT_EQ(TFD_StrategyNumReplicas(strategy, s), 1);
  EXPECT_EQ(TFD_StrategyNumWorkers(strategy, s), 1);
  EXPECT_EQ(TFD_StrategyWorkerRank(strategy, s), 0);
  TFD_StrategyShutdown(strategy, s);
  EXPECT_TF_OK(s);
  TFD_StrategyShutdown(strategy, s);  // Idempotent.
  EXPECT_TF_OK(s);
  TFD_DeleteStrategy(strategy);

  // Single-process strategies are one worker, rank 0; Shutdown is a no-op.
  TFD_Strategy* mirrored = TFD_NewStrategy("mirrored", nullptr, s);
  EXPECT_EQ(TFD_StrategyNumWorkers(mirrored, s), 1);
  EXPECT_EQ(TFD_StrategyWorkerRank(mirrored, s), 0);
  TFD_StrategyShutdown(mirrored, s);
  EXPECT_TF_OK(s);
  TFD_DeleteStrategy(mirrored);
}

TEST(TfdStrategyTest, BadConfigAndOptionsAreRefusedBeforeJoining) {
  Status s;
  setenv("TF_CONFIG", R"({"cluster": {"worker": ["localhost:1"]}})", 1);  // No task.
  EXPECT_EQ(TFD_NewStrategy("multi_worker_mirrored", nullptr, s), nullptr);
  EXPECT_EQ(s.code(), TF_INVALID_ARGUMENT) << s.message();
  EXPECT_NE(s.message().find("TF_CONFIG"), std::string::npos) << s.message();
  unsetenv("TF_CONFIG");

  struct Case {
    const char* key;
    const char* string_value;  // else double_value
    double double_value;
    TF_Code code;
  };
  const Case cases[] = {
      {"implementation", "SHARED_MEMORY", 0, TF_INVALID_ARGUMENT},
      {"timeout_seconds", nullptr, 0, TF_INVALID_ARGUMENT},
      {"startup_timeout_seconds", nullptr, -1, TF_INVALID_ARGUMENT},
      {"bytes_per_pack", nullptr, -1, TF_INVALID_ARGUMENT},
      {"num_replicas", nullptr, 2, TF_UNIMPLEMENTED},  // One replica per worker.
  };
  for (const Case& c : cases) {
    SCOPED_TRACE(c.key);
    TFD_Options* o = TFD_NewOptions();
    if (c.string_value != nullptr) {
      TFD_OptionsSetString(o, c.key, c.string_value, s);
    } else if (std::string(c.key) == "bytes_per_pack" || std::string(c.key) == "num_replicas") {
      TFD_OptionsSetInt(o, c.key, static_cast<int64_t>(c.double_value), s);
    } else {
      TFD_OptionsSetDouble(o, c.key, c.double_value, s);
    }
    ASSERT_TF_OK(s);
    EXPECT_EQ(TFD_NewStrategy("multi_worker_mirrored", o, s), nullptr);
    EXPECT_EQ(s.code(), c.code) << s.message();
    TFD_DeleteOptions(o);
  }

  EXPECT_EQ(TFD_NewStrategy("tpu", nullptr, s), nullptr);
  EXPECT_EQ(s.code(), TF_UNIMPLEMENTED) << s.message();
}

// A strategy with "local_devices" = `value` (a job of one unless TF_CONFIG
// says otherwise); null with `s` set when it is refused.
TFD_Strategy* WithLocalDevices(const char* value, Status& s) {
  TFD_Options* o = TFD_NewOptions();
  TFD_OptionsSetString(o, "local_devices", value, s);
  TFD_OptionsSetDouble(o, "startup_timeout_seconds", 1.5, s);
  TFD_Strategy* strategy = TFD_NewStrategy("multi_worker_mirrored", o, s);
  TFD_DeleteOptions(o);
  return strategy;
}

TEST(TfdStrategyTest, LocalDevicesPicksTheCpuOrEveryGpu) {
  unsetenv("TF_CONFIG");
  Status s;
  for (const char* cpu : {"cpu", "CPU"}) {
    TFD_Strategy* strategy = WithLocalDevices(cpu, s);
    ASSERT_TF_OK(s);
    EXPECT_EQ(TFD_StrategyNumReplicas(strategy, s), 1);
    TFD_StrategyShutdown(strategy, s);
    EXPECT_TF_OK(s);
    TFD_DeleteStrategy(strategy);
  }

  for (const char* bad : {"tpu", "gpu:0", ""}) {
    SCOPED_TRACE(bad);
    EXPECT_EQ(WithLocalDevices(bad, s), nullptr);
    EXPECT_EQ(s.code(), TF_INVALID_ARGUMENT) << s.message();
    EXPECT_NE(s.message().find("\"local_devices\" must be \"cpu\" or \"gpu\""),
              std::string::npos)
        << s.message();
  }
  TFD_Options* number = TFD_NewOptions();
  TFD_OptionsSetInt(number, "local_devices", 1, s);
  EXPECT_EQ(TFD_NewStrategy("multi_worker_mirrored", number, s), nullptr);
  EXPECT_EQ(s.code(), TF_INVALID_ARGUMENT) << s.message();
  TFD_DeleteOptions(number);

  const int gpus = DeviceCount(DeviceType::kGPU);
  TFD_Strategy* on_gpus = WithLocalDevices("gpu", s);
  if (gpus > 0) {
    ASSERT_TF_OK(s);
    EXPECT_EQ(TFD_StrategyNumReplicas(on_gpus, s), gpus);
    TFD_StrategyShutdown(on_gpus, s);
    EXPECT_TF_OK(s);
    TFD_DeleteStrategy(on_gpus);
    return;
  }
  EXPECT_EQ(on_gpus, nullptr);
  EXPECT_EQ(s.code(), TF_FAILED_PRECONDITION) << s.message();
  EXPECT_NE(s.message().find("has no GPU"), std::string::npos) << s.message();

  // Refused before joining: a job whose other worker never starts fails
  // with the missing GPU, not with the start-up timeout.
  absl::StatusOr<std::vector<int>> ports = tfd::testing::PickFreePorts(2);
  ASSERT_TRUE(ports.ok()) << ports.status();
  setenv("TF_CONFIG", TfConfig(*ports).c_str(), 1);
  EXPECT_EQ(WithLocalDevices("gpu", s), nullptr);
  EXPECT_EQ(s.code(), TF_FAILED_PRECONDITION) << s.message();
  unsetenv("TF_CONFIG");
}

TEST(TfdStrategyTest, AWorkerThatNeverStartsFailsTheStartUpNamingIt) {
  absl::StatusOr<std::vector<int>> ports = tfd::testing::PickFreePorts(2);
  ASSERT_TRUE(ports.ok()) << ports.status();
  setenv("TF_CONFIG", TfConfig(*ports).c_str(), 1);
  Status s;
  TFD_Options* o = TFD_NewOptions();
  TFD_OptionsSetDouble(o, "startup_timeout_seconds", 1.5, s);
  const absl::Time start = absl::Now();
  EXPECT_EQ(TFD_NewStrategy("multi_worker_mirrored", o, s), nullptr);
  EXPECT_LT(absl::Now() - start, absl::Seconds(20));
  EXPECT_EQ(s.code(), TF_DEADLINE_EXCEEDED) << s.message();
  EXPECT_NE(s.message().find("task:1"), std::string::npos) << s.message();
  TFD_DeleteOptions(o);
  unsetenv("TF_CONFIG");
}

}  // namespace
}  // namespace capi
}  // namespace tfd
