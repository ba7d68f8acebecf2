// `tfd train --loop=custom` as a 2-worker MultiWorkerMirroredStrategy job
// on localhost, as TensorFlow's custom loop under that strategy:
//   - its weights and optimizer state end within 1e-5 of a Mirrored(2)
//     custom loop on one machine with the same global batch and seed,
//     including a final partial batch split unevenly between the workers
//     (5 and 4 rows: the loss is averaged over the job's 9);
//   - with full batches split evenly it ends where --loop=fit does;
//   - only the chief's checkpoints and logs remain; a restarted job
//     resumes from the latest checkpoint;
//   - the evaluator rebuilds a Keras JSON model, evaluates the job's
//     checkpoints, and --export_best keeps the SavedModel of the best one,
//     which tfd evaluate scores as the evaluator did.
#include <filesystem>
#include <fstream>
#include <memory>
#include <string>
#include <vector>

#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_split.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "tests/multiworker/subprocess.h"
#include "tests/tfd_train_job/tfd_job.h"
#include "tests/tfd_train_job/tfd_job_test_base.h"

namespace tfd {
namespace {

using ::testing::HasSubstr;
using ::testing::Not;
using testing::Subprocess;

namespace fs = std::filesystem;

// Weights after the same steps on the same data: equal but for the order
// of floating-point sums.
constexpr double kTolerance = 1e-5;

class CustomLoopJobTest : public testing::TfdJobTest {
 protected:
  // Runs a 2-worker job with TrainArgs(extra) to the end.
  std::vector<std::unique_ptr<Subprocess>> RunJob(const std::vector<std::string>& extra,
                                                  const std::string& log) {
    auto job = StartWorkers(Addresses(2), "", extra, log);
    for (auto& worker : job) {
      EXPECT_NO_FATAL_FAILURE(testing::ExpectExit(worker.get(), 0, log));
    }
    return job;
  }
};

TEST_F(CustomLoopJobTest, TwoWorkersEndWhereMirroredEndsOnOneMachine) {
  // 1001 images in global batches of 32: the last holds 9 rows, which
  // the two replicas get as 5 and 4.
  ASSERT_NO_FATAL_FAILURE(WriteData(1001));
  const std::string ckpt = dir_ + "/ckpt", logs = dir_ + "/logs";
  auto job = RunJob({"--loop=custom", "--epochs=2", "--checkpoint_dir=" + ckpt, "--logdir=" + logs},
                    "job");
  ASSERT_FALSE(HasFailure());
  const std::string mirrored =
      RunTfd({"train", "--strategy=mirrored", "--replicas=2", "--loop=custom", "--epochs=2",
              "--model=fashion_mlp", "--data_dir=" + data_, "--batch_size=32",
              "--checkpoint_dir=" + dir_ + "/mirrored"},
             0, "mirrored.log");
  testing::ExpectSameCheckpoints(ckpt + "/ckpt-2", dir_ + "/mirrored/ckpt-2", kTolerance);

  // Both workers report the job's numbers, which are one machine's.
  const std::string chief = job[0]->Log(), worker = job[1]->Log();
  const std::string test_line = testing::TestLine(mirrored);
  ASSERT_FALSE(test_line.empty()) << mirrored;
  EXPECT_EQ(testing::TestLine(chief), test_line) << chief;
  EXPECT_EQ(testing::TestLine(worker), test_line) << worker;
  EXPECT_THAT(chief, HasSubstr("MultiWorkerMirroredStrategy with 2 replicas"));
  EXPECT_THAT(chief, HasSubstr("Epoch 2, Loss: "));
  // Only the chief's files remain.
  EXPECT_THAT(chief, HasSubstr("Saved checkpoint for epoch 2: " + ckpt + "/ckpt-2\n"));
  EXPECT_THAT(worker, HasSubstr("Saved checkpoint for epoch 2 to the temporary " + ckpt +
                                "/workertemp_1/ckpt-2 (removed)"));
  EXPECT_THAT(testing::WorkerTempDirs(dir_), ::testing::IsEmpty());
  std::ifstream csv(logs + "/training.csv");
  std::vector<std::string> rows;
  for (std::string row; std::getline(csv, row);) rows.push_back(row.substr(0, row.find(',')));
  EXPECT_THAT(rows, ::testing::ElementsAre("epoch", "0", "1"));
}

TEST_F(CustomLoopJobTest, CustomLoopEndsWhereFitEnds) {
  // Full global batches of 32, 16 rows per replica: Fit's per-replica
  // mean scaled by 1/2 is the custom loop's sum over 32.
  ASSERT_NO_FATAL_FAILURE(WriteData(1024));
  RunJob({"--loop=custom", "--epochs=2", "--checkpoint_dir=" + dir_ + "/custom"}, "custom");
  RunJob({"--loop=fit", "--epochs=2", "--checkpoint_dir=" + dir_ + "/fit"}, "fit");
  ASSERT_FALSE(HasFailure());
  testing::ExpectSameCheckpoints(dir_ + "/custom/ckpt-2", dir_ + "/fit/ckpt-2", kTolerance);
}

TEST_F(CustomLoopJobTest, RestartedJobResumesFromTheLatestCheckpoint) {
  ASSERT_NO_FATAL_FAILURE(WriteData(256));
  const std::string ckpt = dir_ + "/ckpt";
  RunJob({"--loop=custom", "--epochs=1", "--checkpoint_dir=" + ckpt}, "first");
  ASSERT_FALSE(HasFailure());
  auto job = RunJob({"--loop=custom", "--epochs=2", "--checkpoint_dir=" + ckpt}, "restarted");
  ASSERT_FALSE(HasFailure());
  for (auto& worker : job) {
    EXPECT_THAT(worker->Log(), HasSubstr("Restored from " + ckpt + "/ckpt-1: 1 epoch done\n"));
    EXPECT_THAT(worker->Log(), Not(HasSubstr("Epoch 1, ")));
    EXPECT_THAT(worker->Log(), HasSubstr("Epoch 2, Loss: "));
  }
  EXPECT_TRUE(fs::exists(ckpt + "/ckpt-2.index"));
}

// One "Evaluated <checkpoint> (step N): test_loss: X - ..." line.
struct Evaluation {
  std::string checkpoint;
  double loss = 0;
  std::string test_line;
};

std::vector<Evaluation> Evaluations(const std::string& log) {
  std::vector<Evaluation> found;
  for (absl::string_view line : absl::StrSplit(log, '\n')) {
    if (!absl::ConsumePrefix(&line, "Evaluated ")) continue;
    Evaluation e;
    e.checkpoint = std::string(line.substr(0, line.find(' ')));
    e.test_line = testing::TestLine(std::string(line));
    const std::string key = "test_loss: ";
    const size_t end = e.test_line.find(' ', key.size());
    const std::string loss = e.test_line.substr(key.size(), end - key.size());
    EXPECT_TRUE(absl::SimpleAtod(loss, &e.loss)) << line;
    found.push_back(e);
  }
  return found;
}

TEST_F(CustomLoopJobTest, EvaluatorExportsTheBestCheckpoint) {
  ASSERT_NO_FATAL_FAILURE(WriteData(512));
  // Any model tfd train builds: here tf-keras's JSON of the tutorial's MLP,
  // which takes [28, 28] images.
  model_flag_ = "--model_json=" + testing::RunfilePath("core/nn/testdata/fashion_mnist_mlp.json");
  const std::string ckpt = dir_ + "/ckpt", best = dir_ + "/best";
  const std::vector<std::string> addresses = Addresses(3);
  ASSERT_EQ(addresses.size(), 3u);
  const std::vector<std::string> workers = {addresses[0], addresses[1]};
  // The highest loss is "best": the first checkpoint is, and the later
  // ones must not replace it.
  const std::vector<std::string> flags = {
      "--loop=custom",      "--epochs=3",   "--checkpoint_dir=" + ckpt, "--eval_timeout_s=60",
      "--export_best=" + best, "--monitor=loss", "--mode=max"};
  auto evaluator = Start(testing::TfConfig(workers, addresses[2], "evaluator", 0), TrainArgs(flags),
                         "job.evaluator");
  auto job = StartWorkers(workers, addresses[2], flags, "job");
  for (auto& worker : job) ASSERT_NO_FATAL_FAILURE(testing::ExpectExit(worker.get(), 0, "worker"));
  ASSERT_NO_FATAL_FAILURE(testing::ExpectExit(evaluator.get(), 0, "evaluator"));
  const std::string log = evaluator->Log();
  EXPECT_THAT(log, HasSubstr("Evaluator: the last checkpoint (epoch 3) is evaluated"));
  // The evaluator may skip checkpoints written while it was busy; the
  // best is the highest loss among those it evaluated (the first of equals).
  const std::vector<Evaluation> evaluations = Evaluations(log);
  ASSERT_FALSE(evaluations.empty()) << log;
  EXPECT_EQ(evaluations.back().checkpoint, ckpt + "/ckpt-3");
  EXPECT_EQ(evaluations.back().test_line, testing::TestLine(job[0]->Log()));
  Evaluation highest = evaluations[0];
  for (const Evaluation& e : evaluations) {
    if (e.loss > highest.loss) highest = e;
  }
  EXPECT_THAT(log, HasSubstr("Evaluator: " + highest.checkpoint + ": loss improved to "));
  EXPECT_THAT(log, HasSubstr("exported it to " + best + "\n"));
  if (evaluations.size() > 1) {
    EXPECT_THAT(log, HasSubstr("did not improve on"));
  }
  // The export is that checkpoint's model, and only it remains.
  const std::string evaluated =
      RunTfd({"evaluate", "--saved_model=" + best, "--data_dir=" + data_, "--batch_size=32"}, 0,
             "evaluate.log");
  EXPECT_EQ(testing::TestLine(evaluated), highest.test_line) << evaluated;
  EXPECT_FALSE(fs::exists(best + ".next"));
}

}  // namespace
}  // namespace tfd
