// `tfd train --strategy=multi_worker_mirrored` as the tasks of real jobs on
// localhost (each process bounded in time), on a small dataset the test
// writes:
//   - two workers end with the same test loss and accuracy; only the
//     chief's checkpoint, SavedModel and logs remain, and they are
//     readable (tfd inspect, tfd evaluate, the TensorBoard event files);
//     the other worker's temporary directories are gone;
//   - the evaluator task evaluates the chief's checkpoints up to the last
//     one, which scores what the workers printed, and writes its summaries;
//   - a worker killed (kill -9) mid-epoch fails the job naming it; the job
//     restarted with the same TF_CONFIG resumes from the last backup and
//     ends within 0.5% of the accuracy of a run never interrupted;
//   - bad TF_CONFIG, a ps task, a ps job, a worker that never starts and
//     an evaluator that sees no checkpoint give clear errors in time.
#include <filesystem>
#include <fstream>
#include <map>
#include <memory>
#include <string>
#include <tuple>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/time/clock.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "tests/multiworker/subprocess.h"
#include "tests/tfd_train_job/tfd_job.h"
#include "tests/tfd_train_job/tfd_job_test_base.h"

namespace tfd {
namespace {

using ::testing::ContainsRegex;
using ::testing::HasSubstr;
using testing::Subprocess;

namespace fs = std::filesystem;

using TfdTrainJobTest = testing::TfdJobTest;

TEST_F(TfdTrainJobTest, TwoWorkersAgreeAndOnlyTheChiefKeepsItsFiles) {
  ASSERT_NO_FATAL_FAILURE(WriteData(1024));
  const std::string ckpt = dir_ + "/ckpt", export_dir = dir_ + "/export/1", logs = dir_ + "/logs";
  auto children = StartWorkers(
      Addresses(2), "",
      {"--epochs=2", "--checkpoint_dir=" + ckpt, "--export_dir=" + export_dir, "--logdir=" + logs},
      "job");
  for (auto& child : children)
    ASSERT_NO_FATAL_FAILURE(testing::ExpectExit(child.get(), 0, "worker"));
  const std::string chief = children[0]->Log(), worker = children[1]->Log();
  const std::string test_line = testing::TestLine(chief);
  ASSERT_FALSE(test_line.empty()) << chief;
  EXPECT_EQ(testing::TestLine(worker), test_line) << worker;
  // Trained, not guessed: the classes are easy to tell apart.
  EXPECT_GT(testing::TestAccuracy(test_line), 0.5) << test_line;
  EXPECT_THAT(chief, HasSubstr("MultiWorkerMirroredStrategy with 2 replicas"));
  EXPECT_THAT(chief, HasSubstr("Saved checkpoint for epoch 2: " + ckpt + "/ckpt-2\n"));
  EXPECT_THAT(chief, HasSubstr("Exported SavedModel to " + export_dir + "\n"));
  // The other worker saved too, to temporary places, and removed them.
  EXPECT_THAT(worker, HasSubstr("Saved checkpoint for epoch 2 to the temporary " + ckpt +
                                "/workertemp_1/ckpt-2 (removed)"));
  EXPECT_THAT(worker, HasSubstr("Exported SavedModel to the temporary " + dir_ +
                                "/export/workertemp_1/1 (removed)"));
  EXPECT_THAT(testing::WorkerTempDirs(dir_), ::testing::IsEmpty());

  // The chief's checkpoint and SavedModel are readable, and the SavedModel
  // scores exactly what training printed.
  const std::string inspect = RunTfd({"inspect", ckpt}, 0, "inspect.log");
  EXPECT_THAT(inspect, HasSubstr("model/layer_with_weights-0/kernel/.ATTRIBUTES/VARIABLE_VALUE "
                                 "float32 [784,128]"));
  const std::string evaluate =
      RunTfd({"evaluate", "--saved_model=" + export_dir, "--data_dir=" + data_, "--batch_size=32"},
             0, "evaluate.log");
  EXPECT_EQ(testing::TestLine(evaluate), test_line) << evaluate;

  // TensorBoard: the chief's epoch scalars, one per epoch; the last
  // validation accuracy is the test accuracy (the test set validates).
  auto train_scalars = testing::ReadScalars(logs + "/train");
  for (const char* tag : {"epoch_loss", "epoch_accuracy"}) {
    ASSERT_EQ(train_scalars.count(tag), 2u) << tag;
    auto range = train_scalars.equal_range(tag);
    std::vector<int64_t> steps;
    for (auto it = range.first; it != range.second; ++it) steps.push_back(it->second.first);
    EXPECT_THAT(steps, ::testing::UnorderedElementsAre(0, 1)) << tag;
  }
  auto validation = testing::ReadScalars(logs + "/validation");
  ASSERT_EQ(validation.count("epoch_accuracy"), 2u);
  float last_accuracy = -1;
  auto range = validation.equal_range("epoch_accuracy");
  for (auto it = range.first; it != range.second; ++it) {
    if (it->second.first == 1) last_accuracy = it->second.second;
  }
  EXPECT_NEAR(last_accuracy, testing::TestAccuracy(test_line), 1e-4);
  // CSVLogger: a header and a row per epoch (Python's csv ends rows with
  // \r\n).
  std::ifstream csv(logs + "/training.csv");
  std::vector<std::string> rows;
  for (std::string row; std::getline(csv, row);) rows.push_back(row.substr(0, row.find(',')));
  EXPECT_THAT(rows, ::testing::ElementsAre("epoch", "0", "1"));
}

TEST_F(TfdTrainJobTest, EvaluatorEvaluatesTheCheckpointsUpToTheLast) {
  ASSERT_NO_FATAL_FAILURE(WriteData(1024));
  const std::string ckpt = dir_ + "/ckpt", logs = dir_ + "/logs";
  const std::vector<std::string> addresses = Addresses(3);
  ASSERT_EQ(addresses.size(), 3u);
  const std::vector<std::string> workers = {addresses[0], addresses[1]};
  const std::vector<std::string> flags = {"--epochs=3", "--checkpoint_dir=" + ckpt,
                                          "--logdir=" + logs, "--eval_timeout_s=60"};
  auto evaluator = Start(testing::TfConfig(workers, addresses[2], "evaluator", 0), TrainArgs(flags),
                         "job.evaluator");
  auto children = StartWorkers(workers, addresses[2], flags, "job");
  for (auto& child : children)
    ASSERT_NO_FATAL_FAILURE(testing::ExpectExit(child.get(), 0, "worker"));
  ASSERT_NO_FATAL_FAILURE(testing::ExpectExit(evaluator.get(), 0, "evaluator"));
  const std::string log = evaluator->Log();
  const std::string test_line = testing::TestLine(children[0]->Log());
  ASSERT_FALSE(test_line.empty());
  // 1024 images in batches of 32: 32 steps an epoch, 96 in all.
  EXPECT_THAT(log, HasSubstr("Evaluated " + ckpt + "/ckpt-3 (step 96): " + test_line + "\n"));
  EXPECT_THAT(log, HasSubstr("Evaluator: the last checkpoint (epoch 3) is evaluated"));
  // Its summaries sit beside the chief's, at the optimizer's step.
  auto scalars = testing::ReadScalars(logs + "/evaluator/validation");
  ASSERT_GE(scalars.count("evaluation_accuracy_vs_iterations"), 1u);
  ASSERT_GE(scalars.count("evaluation_loss_vs_iterations"), 1u);
  int64_t last_step = -1;
  float last_accuracy = -1;
  auto range = scalars.equal_range("evaluation_accuracy_vs_iterations");
  for (auto it = range.first; it != range.second; ++it) {
    if (it->second.first > last_step) std::tie(last_step, last_accuracy) = it->second;
  }
  EXPECT_EQ(last_step, 96);
  EXPECT_NEAR(last_accuracy, testing::TestAccuracy(test_line), 1e-4);
}

TEST_F(TfdTrainJobTest, EvaluatorWithoutCheckpointsTimesOut) {
  ASSERT_NO_FATAL_FAILURE(WriteData(64));
  const std::vector<std::string> addresses = Addresses(2);
  ASSERT_EQ(addresses.size(), 2u);
  const absl::Time start = absl::Now();
  auto evaluator =
      Start(testing::TfConfig({addresses[0]}, addresses[1], "evaluator", 0),
            TrainArgs({"--checkpoint_dir=" + dir_ + "/none", "--eval_timeout_s=2"}), "evaluator");
  ASSERT_NO_FATAL_FAILURE(testing::ExpectExit(evaluator.get(), 1, "evaluator"));
  EXPECT_LT(absl::Now() - start, absl::Seconds(30));
  EXPECT_THAT(evaluator->Log(), HasSubstr("DEADLINE_EXCEEDED: evaluator: no new checkpoint in " +
                                          dir_ + "/none for 2 s (last evaluated: none)"));
}

TEST_F(TfdTrainJobTest, KilledWorkerFailsTheJobAndTheRestartedJobResumesFromTheBackup) {
  // 128 steps an epoch, a backup every 8: long enough to kill mid-epoch.
  ASSERT_NO_FATAL_FAILURE(WriteData(4096));
  const std::string backup = dir_ + "/backup", state = backup + "/chief/training_state";
  const std::vector<std::string> flags = {"--epochs=2", "--backup_dir=" + backup, "--save_freq=8"};

  // The run never interrupted, for the final accuracy.
  auto reference = StartWorkers(Addresses(2), "", {"--epochs=2"}, "reference");
  for (auto& child : reference)
    ASSERT_NO_FATAL_FAILURE(testing::ExpectExit(child.get(), 0, "reference"));
  const double reference_accuracy = testing::TestAccuracy(testing::TestLine(reference[0]->Log()));
  ASSERT_GT(reference_accuracy, 0);

  const std::vector<std::string> workers = Addresses(2);
  {
    auto job = StartWorkers(workers, "", flags, "killed");
    ASSERT_EQ(job.size(), 2u);
    // Kill once the first backup exists: mid-epoch, with steps to lose.
    const absl::Time deadline = absl::Now() + absl::Seconds(120);
    while (!fs::exists(state) && absl::Now() < deadline) absl::SleepFor(absl::Milliseconds(2));
    ASSERT_TRUE(fs::exists(state)) << job[0]->Log();
    job[1]->Kill();
    const absl::Time killed = absl::Now();
    ASSERT_NO_FATAL_FAILURE(testing::ExpectExit(job[0].get(), 1, "the chief after the kill"));
    // --heartbeat_timeout_s=3: named well within the collective timeout.
    EXPECT_LT(absl::Now() - killed, absl::Seconds(20));
    EXPECT_THAT(job[0]->Log(), HasSubstr("UNAVAILABLE"));
    EXPECT_THAT(job[0]->Log(), HasSubstr("task /job:worker/replica:0/task:1 is unavailable"));
  }
  // Where the last backup was taken (training_state: "epoch E\nstep S").
  std::ifstream in(state);
  std::string word;
  int epoch = -1;
  int64_t step = -2;
  in >> word >> epoch >> word >> step;
  ASSERT_GE(epoch, 0);
  ASSERT_GE(step, 0);
  ASSERT_LT(epoch * 128 + step + 1, 2 * 128) << "the job ended before the kill";

  auto restarted = StartWorkers(workers, "", flags, "restarted");
  for (auto& child : restarted)
    ASSERT_NO_FATAL_FAILURE(testing::ExpectExit(child.get(), 0, "restarted"));
  const std::string resumed = absl::StrCat("Restored the backup taken after step ", step + 1,
                                           " of epoch ", epoch + 1, "\n");
  const std::string test_line = testing::TestLine(restarted[0]->Log());
  for (auto& child : restarted) {
    EXPECT_THAT(child->Log(), HasSubstr(resumed));
    EXPECT_EQ(testing::TestLine(child->Log()), test_line);
  }
  EXPECT_NEAR(testing::TestAccuracy(test_line), reference_accuracy, 0.005);
  // Fit finished: the backup is deleted, and no temporary copy is left.
  EXPECT_FALSE(fs::exists(backup + "/chief"));
  EXPECT_THAT(testing::WorkerTempDirs(dir_), ::testing::IsEmpty());
}

TEST_F(TfdTrainJobTest, WorkersThatSeeDifferentCheckpointsAreRefused) {
  ASSERT_NO_FATAL_FAILURE(WriteData(256));
  // The chief's directory holds ckpt-1; worker 1 is given an empty one, as
  // a worker without the chief's file system would see it.
  const std::string ckpt = dir_ + "/ckpt", elsewhere = dir_ + "/elsewhere";
  RunTfd({"train", "--model=fashion_mlp", "--data_dir=" + data_, "--batch_size=32",
          "--checkpoint_dir=" + ckpt},
         0, "single");
  ASSERT_TRUE(fs::exists(ckpt + "/ckpt-1.index"));
  const std::vector<std::string> workers = Addresses(2);
  ASSERT_EQ(workers.size(), 2u);
  std::vector<std::unique_ptr<Subprocess>> job;
  job.push_back(Start(testing::TfConfig(workers, "", "worker", 0),
                      TrainArgs({"--epochs=2", "--checkpoint_dir=" + ckpt}), "job.worker0"));
  job.push_back(Start(testing::TfConfig(workers, "", "worker", 1),
                      TrainArgs({"--epochs=2", "--checkpoint_dir=" + elsewhere}), "job.worker1"));
  for (auto& child : job) {
    ASSERT_NO_FATAL_FAILURE(testing::ExpectExit(child.get(), 1, "worker"));
    EXPECT_THAT(child->Log(), HasSubstr("FAILED_PRECONDITION: the workers see different latest "
                                        "checkpoints in "));
    EXPECT_THAT(child->Log(), HasSubstr("the job's mean is ckpt-0.5"));
  }
}

TEST_F(TfdTrainJobTest, BadClustersAreClearErrors) {
  ASSERT_NO_FATAL_FAILURE(WriteData(64));
  const std::vector<std::string> args = TrainArgs({});
  const std::vector<std::pair<std::string, std::string>> cases = {
      {R"({"cluster": {"worker": ["localhost:1"]}, "task": {"type": "worker", "index": 3}})",
       "INVALID_ARGUMENT: TF_CONFIG: task.index 3 is out of range for job \"worker\""},
      {R"({"cluster": {"worker": ["localhost:1"]}, "task": {"type": "worker"})",
       "INVALID_ARGUMENT: TF_CONFIG"},
      {R"({"cluster": {"worker": ["localhost:1"]})", "INVALID_ARGUMENT: TF_CONFIG"},
      {R"({"cluster": {"worker": ["localhost"]}, "task": {"type": "worker", "index": 0}})",
       "INVALID_ARGUMENT: TF_CONFIG"},
      {R"({"cluster": {"worker": ["localhost:1"], "ps": ["localhost:2"]},
           "task": {"type": "ps", "index": 0}})",
       "INVALID_ARGUMENT: the cluster {\"ps\": [\"localhost:2\"], \"worker\": [\"localhost:1\"]} "
       "has a ps job, which MultiWorkerMirroredStrategy does not use"},
      {R"({"cluster": {"worker": ["localhost:1"], "ps": ["localhost:2"]},
           "task": {"type": "worker", "index": 0}})",
       "has a ps job, which MultiWorkerMirroredStrategy does not use"},
      {"{not json", "INVALID_ARGUMENT: TF_CONFIG"},
  };
  for (size_t i = 0; i < cases.size(); ++i) {
    SCOPED_TRACE(cases[i].first);
    const std::string log =
        RunTfd(args, 1, absl::StrCat("bad", i), {{"TF_CONFIG", cases[i].first}});
    EXPECT_THAT(log, HasSubstr("tfd train: "));
    EXPECT_THAT(log, HasSubstr(cases[i].second));
  }
}

TEST_F(TfdTrainJobTest, WorkerThatNeverStartsIsNamedWithinTheStartupTimeout) {
  ASSERT_NO_FATAL_FAILURE(WriteData(64));
  const std::vector<std::string> workers = Addresses(2);
  ASSERT_EQ(workers.size(), 2u);
  const absl::Time start = absl::Now();
  auto chief = Start(testing::TfConfig(workers, "", "worker", 0),
                     TrainArgs({"--startup_timeout_s=2"}), "alone");
  ASSERT_NO_FATAL_FAILURE(testing::ExpectExit(chief.get(), 1, "the chief alone"));
  EXPECT_LT(absl::Now() - start, absl::Seconds(30));
  EXPECT_THAT(chief->Log(), HasSubstr("DEADLINE_EXCEEDED"));
  EXPECT_THAT(chief->Log(), HasSubstr("/job:worker/replica:0/task:1"));
}

}  // namespace
}  // namespace tfd
