#include "tools/tfd/train_flags.h"

#include "absl/strings/str_cat.h"
#include "gtest/gtest.h"

namespace tfd {
namespace cli {
namespace {

TEST(TrainFlagsTest, DefaultsWithNoFlags) {
  absl::StatusOr<TrainFlags> flags = ParseTrainFlags({});
  ASSERT_TRUE(flags.ok()) << flags.status();
  EXPECT_EQ(flags->model, "fashion_cnn");
  EXPECT_EQ(flags->strategy, "one_device");
  EXPECT_EQ(flags->replicas, 1);
  EXPECT_EQ(flags->epochs, 1);
  EXPECT_EQ(flags->batch_size, 64);
  EXPECT_TRUE(flags->logdir.empty());
  EXPECT_EQ(flags->loop, "fit");
  EXPECT_EQ(flags->devices, "auto");
  EXPECT_EQ(flags->policy, "float32");
  EXPECT_FALSE(flags->help);
}

// --policy: Keras's global dtype policy names, under any loop and strategy
// (parameter_server refuses all but float32 when it starts: UNIMPLEMENTED).
TEST(TrainFlagsTest, ParsesPolicy) {
  for (const char* policy : {"float32", "mixed_float16", "mixed_bfloat16"}) {
    for (const char* loop : {"fit", "custom"}) {
      absl::StatusOr<TrainFlags> flags = ParseTrainFlags(
          {absl::StrCat("--policy=", policy), absl::StrCat("--loop=", loop), "--strategy=mirrored",
           "--replicas=2"});
      ASSERT_TRUE(flags.ok()) << policy << " " << loop << ": " << flags.status();
      EXPECT_EQ(flags->policy, policy);
    }
  }
  absl::StatusOr<TrainFlags> flags =
      ParseTrainFlags({"--policy=mixed_bfloat16", "--strategy=multi_worker_mirrored"});
  ASSERT_TRUE(flags.ok()) << flags.status();
  EXPECT_EQ(flags->policy, "mixed_bfloat16");
  // A JSON model is read under the policy (Keras's set_global_policy
  // before model_from_json).
  for (const char* policy : {"float32", "mixed_float16", "mixed_bfloat16"}) {
    flags = ParseTrainFlags({absl::StrCat("--policy=", policy), "--model_json=/m.json"});
    ASSERT_TRUE(flags.ok()) << policy << ": " << flags.status();
    EXPECT_EQ(flags->policy, policy);
  }
}

// --devices: auto (every GPU, else the CPU), cpu or gpu.
TEST(TrainFlagsTest, ParsesDevices) {
  for (const char* devices : {"auto", "cpu", "gpu"}) {
    absl::StatusOr<TrainFlags> flags =
        ParseTrainFlags({"--strategy=mirrored", absl::StrCat("--devices=", devices)});
    ASSERT_TRUE(flags.ok()) << devices << ": " << flags.status();
    EXPECT_EQ(flags->devices, devices);
  }
  // CPU replicas are what --devices=cpu trains on a GPU machine.
  absl::StatusOr<TrainFlags> flags =
      ParseTrainFlags({"--strategy=mirrored", "--devices=cpu", "--replicas=4"});
  ASSERT_TRUE(flags.ok()) << flags.status();
  EXPECT_EQ(flags->replicas, 4);
  flags = ParseTrainFlags({"--strategy=multi_worker_mirrored", "--devices=gpu"});
  ASSERT_TRUE(flags.ok()) << flags.status();
  EXPECT_EQ(flags->devices, "gpu");
}

TEST(TrainFlagsTest, ParsesEveryFlag) {
  absl::StatusOr<TrainFlags> flags = ParseTrainFlags(
      {"--model=fashion_mlp", "--strategy=mirrored", "--replicas=2", "--epochs=10",
       "--batch_size=128", "--seed=7", "--logdir=/tmp/logs", "--data_dir=/data", "--loop=custom"});
  ASSERT_TRUE(flags.ok()) << flags.status();
  EXPECT_EQ(flags->model, "fashion_mlp");
  EXPECT_EQ(flags->strategy, "mirrored");
  EXPECT_EQ(flags->replicas, 2);
  EXPECT_EQ(flags->epochs, 10);
  EXPECT_EQ(flags->batch_size, 128);
  EXPECT_EQ(flags->seed, 7);
  EXPECT_EQ(flags->logdir, "/tmp/logs");
  EXPECT_EQ(flags->data_dir, "/data");
  EXPECT_EQ(flags->loop, "custom");
}

TEST(TrainFlagsTest, ParsesTheMultiWorkerFlags) {
  absl::StatusOr<TrainFlags> flags = ParseTrainFlags(
      {"--strategy=multi_worker_mirrored", "--backup_dir=/tmp/backup", "--save_freq=100",
       "--startup_timeout_s=5", "--heartbeat_timeout_s=3", "--collective_timeout_s=30",
       "--eval_timeout_s=120"});
  ASSERT_TRUE(flags.ok()) << flags.status();
  EXPECT_EQ(flags->strategy, "multi_worker_mirrored");
  EXPECT_EQ(flags->backup_dir, "/tmp/backup");
  EXPECT_EQ(flags->save_freq, 100);
  EXPECT_EQ(flags->startup_timeout_s, 5);
  EXPECT_EQ(flags->heartbeat_timeout_s, 3);
  EXPECT_EQ(flags->collective_timeout_s, 30);
  EXPECT_EQ(flags->eval_timeout_s, 120);
  // Keras's spelling of the default: a backup every epoch.
  flags = ParseTrainFlags({"--backup_dir=/b", "--save_freq=epoch"});
  ASSERT_TRUE(flags.ok()) << flags.status();
  EXPECT_EQ(flags->save_freq, 0);
}

// TensorFlow trains custom loops under MultiWorkerMirroredStrategy and
// resumes them from checkpoints.
TEST(TrainFlagsTest, CustomLoopTakesMultiWorkerAndCheckpoints) {
  absl::StatusOr<TrainFlags> flags = ParseTrainFlags(
      {"--strategy=multi_worker_mirrored", "--loop=custom", "--checkpoint_dir=/c"});
  ASSERT_TRUE(flags.ok()) << flags.status();
  EXPECT_EQ(flags->loop, "custom");
  EXPECT_EQ(flags->checkpoint_dir, "/c");
}

TEST(TrainFlagsTest, ExportBestTakesMonitorAndMode) {
  absl::StatusOr<TrainFlags> flags = ParseTrainFlags(
      {"--strategy=multi_worker_mirrored", "--export_best=/best", "--monitor=accuracy",
       "--mode=max"});
  ASSERT_TRUE(flags.ok()) << flags.status();
  EXPECT_EQ(flags->export_best, "/best");
  EXPECT_EQ(flags->monitor, "accuracy");
  EXPECT_EQ(flags->mode, "max");
  flags = ParseTrainFlags({"--strategy=multi_worker_mirrored", "--export_best=/best"});
  ASSERT_TRUE(flags.ok()) << flags.status();
  EXPECT_EQ(flags->monitor, "loss");
  EXPECT_EQ(flags->mode, "auto");
}

TEST(TrainFlagsTest, HelpIsAFlagNotAnError) {
  absl::StatusOr<TrainFlags> flags = ParseTrainFlags({"--help"});
  ASSERT_TRUE(flags.ok()) << flags.status();
  EXPECT_TRUE(flags->help);
}

// Each bad argument is refused with a message naming what was wrong.
TEST(TrainFlagsTest, RefusesBadFlags) {
  const std::vector<std::pair<std::vector<std::string>, std::string>> cases = {
      {{"--model=resnet"}, "--model must be one of fashion_cnn, fashion_mlp, got 'resnet'"},
      {{"--strategy=tpu"}, "--strategy must be one of"},
      {{"--loop=eager"}, "--loop must be one of fit, custom, got 'eager'"},
      {{"--epochs=0"}, "--epochs must be an integer >= 1, got '0'"},
      {{"--epochs=two"}, "--epochs must be an integer >= 1, got 'two'"},
      {{"--batch_size=-4"}, "--batch_size must be an integer >= 1"},
      {{"--replicas=0"}, "--replicas must be an integer >= 1"},
      {{"--seed=1.5"}, "--seed must be an integer >= 0"},
      {{"--epochs"}, "--epochs needs a value"},
      {{"--learning_rate=0.1"}, "unknown flag --learning_rate"},
      {{"fashion_cnn"}, "unexpected argument 'fashion_cnn'"},
      {{"--data_dir="}, "--data_dir must not be empty"},
      {{"--strategy=one_device", "--replicas=2"}, "one_device runs one replica"},
      {{"--strategy=mirrored", "--replicas=4", "--batch_size=2"},
       "--batch_size (2) is the global batch and must be at least --replicas (4)"},
      {{"--backup_dir=/b", "--loop=custom"}, "--backup_dir needs --loop=fit"},
      {{"--model=fashion_mlp", "--model_json=/m.json"}, "give --model or --model_json, not both"},
      {{"--model_json="}, "--model_json must not be empty"},
      {{"--monitor=accuracy"}, "--monitor and --mode choose what --export_best keeps"},
      {{"--mode=max"}, "--monitor and --mode choose what --export_best keeps"},
      {{"--strategy=multi_worker_mirrored", "--export_best=/e", "--monitor=val_loss"},
       "--monitor must be one of loss, accuracy, got 'val_loss'"},
      {{"--strategy=multi_worker_mirrored", "--export_best=/e", "--mode=lowest"},
       "--mode must be one of auto, min, max, got 'lowest'"},
      {{"--export_best=/e"}, "--export_best is written by the evaluator task"},
      {{"--save_freq=10"}, "--save_freq sets how often --backup_dir is written"},
      {{"--backup_dir=/b", "--save_freq=0"}, "--save_freq must be an integer >= 1, got '0'"},
      {{"--heartbeat_timeout_s=0"}, "--heartbeat_timeout_s must be an integer >= 1"},
      {{"--backup_dir="}, "--backup_dir must not be empty"},
      {{"--steps_per_epoch=10"}, "need --strategy=parameter_server"},
      {{"--strategy=parameter_server", "--ps_shards=0"}, "--ps_shards must be an integer >= 1"},
      {{"--devices=tpu"}, "--devices must be one of auto, cpu, gpu, got 'tpu'"},
      {{"--devices="}, "--devices must be one of auto, cpu, gpu, got ''"},
      {{"--strategy=mirrored", "--devices=gpu", "--replicas=2"},
       "--replicas=2 sets CPU replicas; --devices=gpu runs one replica per GPU"},
      {{"--strategy=parameter_server", "--devices=gpu"},
       "--strategy=parameter_server trains on the CPU"},
      {{"--policy=bfloat16"},
       "--policy must be one of float32, mixed_float16, mixed_bfloat16, got 'bfloat16'"},
      {{"--policy="}, "--policy must be one of float32, mixed_float16, mixed_bfloat16, got ''"},
  };
  for (const auto& [args, message] : cases) {
    absl::StatusOr<TrainFlags> flags = ParseTrainFlags(args);
    ASSERT_FALSE(flags.ok()) << args[0];
    EXPECT_EQ(flags.status().code(), absl::StatusCode::kInvalidArgument);
    EXPECT_NE(flags.status().message().find(message), absl::string_view::npos)
        << flags.status().message();
  }
}

TEST(TrainFlagsTest, UsageListsEveryFlag) {
  const std::string usage = TrainUsage();
  for (const char* flag : {"--model=fashion_cnn|fashion_mlp",
                           "--strategy=one_device|mirrored|central_storage|multi_worker_mirrored",
                           "--replicas=", "--epochs=", "--batch_size=", "--seed=", "--logdir=",
                           "--loop=", "--data_dir=", "--backup_dir=", "--save_freq=",
                           "--startup_timeout_s=", "--heartbeat_timeout_s=",
                           "--collective_timeout_s=", "--eval_timeout_s=", "--export_best=",
                           "--monitor=loss|accuracy", "--mode=auto|min|max", "--model_json=",
                           "--devices=auto|cpu|gpu",
                           "--policy=float32|mixed_float16|mixed_bfloat16"}) {
    EXPECT_NE(usage.find(flag), std::string::npos) << flag;
  }
}

}  // namespace
}  // namespace cli
}  // namespace tfd
