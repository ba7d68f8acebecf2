// TensorBoard's event files read back: the epoch scalars of tf-keras 2.x
// (epoch_loss, epoch_accuracy in train/, the val_ values without their
// prefix in validation/), one event per scalar at step = epoch.
#include "core/nn/callbacks/tensorboard.h"

#include <dirent.h>
#include <unistd.h>

#include <cstdlib>
#include <map>

#include "core/io/file.h"
#include "core/io/record_reader.h"
#include "core/protobuf/event.pb.h"
#include "gtest/gtest.h"

namespace tfd {
namespace nn {
namespace {

std::string TempDir(const std::string& name) {
  return std::string(std::getenv("TEST_TMPDIR")) + "/tensorboard_test." +
         std::to_string(getpid()) + "/" + name;
}

// The files of `dir` whose names contain "tfevents".
std::vector<std::string> EventFiles(const std::string& dir) {
  std::vector<std::string> files;
  DIR* d = opendir(dir.c_str());
  if (d == nullptr) return files;
  while (dirent* e = readdir(d)) {
    const std::string name = e->d_name;
    if (name.find("tfevents") != std::string::npos) files.push_back(dir + "/" + name);
  }
  closedir(d);
  return files;
}

// tag -> (step, value) of every scalar event in the one event file of `dir`.
std::multimap<std::string, std::pair<int64_t, float>> Scalars(const std::string& dir) {
  std::multimap<std::string, std::pair<int64_t, float>> out;
  const std::vector<std::string> files = EventFiles(dir);
  EXPECT_EQ(files.size(), 1u) << dir;
  if (files.size() != 1) return out;
  EXPECT_NE(files[0].find(".v2"), std::string::npos) << files[0];
  auto file = io::NewRandomAccessFile(files[0]);
  EXPECT_TRUE(file.ok()) << file.status();
  if (!file.ok()) return out;
  io::RecordReader reader(file->get());
  uint64_t offset = 0;
  std::string record;
  while (reader.ReadRecord(&offset, &record).ok()) {
    tensorflow::Event event;
    EXPECT_TRUE(event.ParseFromString(record));
    for (const auto& v : event.summary().value()) {
      EXPECT_EQ(v.metadata().plugin_data().plugin_name(), "scalars") << v.tag();
      out.emplace(v.tag(), std::make_pair(event.step(), v.tensor().float_val(0)));
    }
  }
  return out;
}

TEST(TensorBoardTest, EpochScalarsInTrainAndValidation) {
  const std::string dir = TempDir("fit");
  TensorBoard tensorboard(dir);
  ASSERT_TRUE(tensorboard.OnTrainBegin(Logs()).ok());
  for (int epoch = 0; epoch < 2; ++epoch) {
    Logs logs{{"loss", 1.0 - 0.25 * epoch},
              {"accuracy", 0.5 + 0.25 * epoch},
              {"val_loss", 2.0 - 0.5 * epoch},
              {"val_accuracy", 0.25 * epoch}};
    ASSERT_TRUE(tensorboard.OnEpochEnd(epoch, logs).ok());
  }
  Logs end;
  ASSERT_TRUE(tensorboard.OnTrainEnd(end).ok());

  using Points = std::multimap<std::string, std::pair<int64_t, float>>;
  const Points train = Scalars(dir + "/train");
  const Points validation = Scalars(dir + "/validation");
  const Points expected_train = {{"epoch_loss", {0, 1.0f}},
                                 {"epoch_loss", {1, 0.75f}},
                                 {"epoch_accuracy", {0, 0.5f}},
                                 {"epoch_accuracy", {1, 0.75f}}};
  const Points expected_validation = {{"epoch_loss", {0, 2.0f}},
                                      {"epoch_loss", {1, 1.5f}},
                                      {"epoch_accuracy", {0, 0.0f}},
                                      {"epoch_accuracy", {1, 0.25f}}};
  EXPECT_EQ(train, expected_train);
  EXPECT_EQ(validation, expected_validation);
}

TEST(TensorBoardTest, NoValidationLogsNoValidationFile) {
  const std::string dir = TempDir("no_validation");
  TensorBoard tensorboard(dir);
  ASSERT_TRUE(tensorboard.OnTrainBegin(Logs()).ok());
  Logs logs{{"loss", 0.5}};
  ASSERT_TRUE(tensorboard.OnEpochEnd(0, logs).ok());
  Logs end;
  ASSERT_TRUE(tensorboard.OnTrainEnd(end).ok());
  EXPECT_EQ(Scalars(dir + "/train").size(), 1u);
  EXPECT_TRUE(EventFiles(dir + "/validation").empty());
}

TEST(TensorBoardTest, UnwritableLogDirIsAnError) {
  TensorBoard tensorboard("/proc/no-such-place/logs");
  EXPECT_FALSE(tensorboard.OnTrainBegin(Logs()).ok());
}

}  // namespace
}  // namespace nn
}  // namespace tfd
