// CSVLogger's files byte for byte as tf_keras.callbacks.CSVLogger 2.21
// writes them for the same logs (Python floats from float32 metrics).
#include "core/nn/callbacks/csv_logger.h"

#include <cstdlib>
#include <unistd.h>

#include "core/io/file.h"
#include "gtest/gtest.h"

namespace tfd {
namespace nn {
namespace {

std::string TempPath(const std::string& name) {
  return std::string(std::getenv("TEST_TMPDIR")) + "/" + name;
}

std::string ReadAll(const std::string& path) {
  absl::StatusOr<std::string> text = io::ReadFileToString(path);
  EXPECT_TRUE(text.ok()) << text.status();
  return text.ok() ? *text : "";
}

// Runs one Fit's worth of hooks with `epochs` logs.
void RunEpochs(CSVLogger& logger, std::vector<Logs> epochs) {
  ASSERT_TRUE(logger.OnTrainBegin(Logs()).ok());
  for (size_t i = 0; i < epochs.size(); ++i) {
    absl::Status s = logger.OnEpochEnd(static_cast<int>(i), epochs[i]);
    ASSERT_TRUE(s.ok()) << s;
  }
  Logs end;
  ASSERT_TRUE(logger.OnTrainEnd(end).ok());
}

TEST(CSVLoggerTest, SortedKeysWithValidationColumnsAddedAsNA) {
  const std::string path = TempPath("train.csv");
  CSVLogger logger(path);
  RunEpochs(logger, {Logs{{"loss", static_cast<double>(0.5134f)}, {"accuracy", 0.8125}},
                     Logs{{"loss", 0.25}, {"accuracy", static_cast<double>(0.9f)}}});
  EXPECT_EQ(ReadAll(path),
            "epoch,accuracy,loss,val_accuracy,val_loss\r\n"
            "0,0.8125,0.5134000182151794,NA,NA\r\n"
            "1,0.8999999761581421,0.25,NA,NA\r\n");
}

TEST(CSVLoggerTest, ValidationKeysAndCustomSeparator) {
  const std::string path = TempPath("val.csv");
  CSVLogger logger(path, ';');
  RunEpochs(logger, {Logs{{"loss", 1.0}, {"val_loss", 2.0}, {"lr", 0.001}}});
  EXPECT_EQ(ReadAll(path), "epoch;loss;lr;val_loss\r\n0;1.0;0.001;2.0\r\n");
}

TEST(CSVLoggerTest, AppendContinuesWithoutASecondHeader) {
  const std::string path = TempPath("append.csv");
  CSVLogger first(path);
  RunEpochs(first, {Logs{{"loss", 1.0}, {"val_loss", 2.0}}});
  CSVLogger second(path, ',', /*append=*/true);
  RunEpochs(second, {Logs{{"loss", 0.5}, {"val_loss", 1.5}}});
  EXPECT_EQ(ReadAll(path), "epoch,loss,val_loss\r\n0,1.0,2.0\r\n0,0.5,1.5\r\n");
}

TEST(CSVLoggerTest, AppendToANewFileWritesTheHeader) {
  const std::string path = TempPath("new_append.csv");
  CSVLogger logger(path, ',', /*append=*/true);
  RunEpochs(logger, {Logs{{"loss", 1.0}, {"val_loss", 2.0}}});
  EXPECT_EQ(ReadAll(path), "epoch,loss,val_loss\r\n0,1.0,2.0\r\n");
}

TEST(CSVLoggerTest, WithoutAppendAFitStartsTheFileAfresh) {
  const std::string path = TempPath("overwrite.csv");
  CSVLogger logger(path);
  RunEpochs(logger, {Logs{{"loss", 1.0}, {"val_loss", 2.0}}});
  RunEpochs(logger, {Logs{{"loss", 3.0}, {"val_loss", 4.0}}});
  EXPECT_EQ(ReadAll(path), "epoch,loss,val_loss\r\n0,3.0,4.0\r\n");
}

TEST(CSVLoggerTest, FieldsWithTheSeparatorAreQuoted) {
  const std::string path = TempPath("quoted.csv");
  CSVLogger logger(path);
  RunEpochs(logger, {Logs{{"a,b", 1.0}, {"val_x\"y", 2.0}}});
  EXPECT_EQ(ReadAll(path), "epoch,\"a,b\",\"val_x\"\"y\"\r\n0,1.0,2.0\r\n");
}

TEST(CSVLoggerTest, UnwritableDirectoryIsAnError) {
  CSVLogger logger("/nonexistent-dir/train.csv");
  ASSERT_TRUE(logger.OnTrainBegin(Logs()).ok());
  Logs logs{{"loss", 1.0}};
  EXPECT_FALSE(logger.OnEpochEnd(0, logs).ok());
}

}  // namespace
}  // namespace nn
}  // namespace tfd
