#include "core/distribute/worker_write_location.h"

#include <filesystem>
#include <fstream>

#include "gtest/gtest.h"

namespace tfd {
namespace distribute {
namespace {

namespace fs = std::filesystem;

ClusterInfo Worker(int index, bool chief) {
  ClusterInfo info;
  info.task_type = chief ? TaskType::kChief : TaskType::kWorker;
  info.task_index = index;
  info.is_chief = chief;
  return info;
}

TEST(WorkerWriteLocationTest, ChiefWritesTheRealPath) {
  EXPECT_EQ(WriteDirPath("/ckpt", Worker(0, true)), "/ckpt");
  EXPECT_EQ(WriteFilePath("/ckpt/model.index", Worker(0, true)), "/ckpt/model.index");
}

TEST(WorkerWriteLocationTest, OthersWriteUnderWorkertemp) {
  EXPECT_EQ(WriteDirPath("/ckpt", Worker(2, false)), "/ckpt/workertemp_2");
  EXPECT_EQ(WriteFilePath("/ckpt/model.index", Worker(1, false)), "/ckpt/workertemp_1/model.index");
  // Already a temporary directory: kept as it is.
  EXPECT_EQ(WriteDirPath("/ckpt/workertemp_1", Worker(1, false)), "/ckpt/workertemp_1");
}

TEST(WorkerWriteLocationTest, NonChiefDirectoryIsCreatedAndRemoved) {
  const fs::path root = fs::path(testing::TempDir()) / "non_chief";
  std::string dir;
  {
    auto where = WorkerWriteLocation::Create(root.string(), Worker(1, false));
    ASSERT_TRUE(where.ok()) << where.status();
    dir = where->dir();
    EXPECT_FALSE(where->is_chief());
    EXPECT_TRUE(fs::is_directory(dir));
    std::ofstream(where->FilePath("ckpt-1.index")) << "bytes";
    EXPECT_TRUE(fs::exists(fs::path(dir) / "ckpt-1.index"));
  }
  EXPECT_FALSE(fs::exists(dir));
  EXPECT_TRUE(fs::exists(root));  // Only the worker's own directory goes.
}

TEST(WorkerWriteLocationTest, ChiefFilesStay) {
  const fs::path root = fs::path(testing::TempDir()) / "chief";
  {
    auto where = WorkerWriteLocation::Create(root.string(), Worker(0, true));
    ASSERT_TRUE(where.ok()) << where.status();
    std::ofstream(where->FilePath("ckpt-1.index")) << "bytes";
    EXPECT_TRUE(where->CleanUp().ok());
  }
  EXPECT_TRUE(fs::exists(root / "ckpt-1.index"));
}

TEST(WorkerWriteLocationTest, UncreatableDirectoryIsAnError) {
  const fs::path file = fs::path(testing::TempDir()) / "a_file";
  std::ofstream(file) << "x";
  auto where = WorkerWriteLocation::Create((file / "sub").string(), Worker(0, true));
  EXPECT_EQ(where.status().code(), absl::StatusCode::kInternal);
}

}  // namespace
}  // namespace distribute
}  // namespace tfd
