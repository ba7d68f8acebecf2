#include "core/data/idx_file.h"

#include <zlib.h>

#include <cstdio>
#include <fstream>
#include <string>
#include <vector>

#include "gtest/gtest.h"

namespace tfd {
namespace data {
namespace {

std::string TempPath(const std::string& name) {
  const char* dir = std::getenv("TEST_TMPDIR");
  return std::string(dir ? dir : "/tmp") + "/" + name;
}

void WriteFile(const std::string& path, const std::vector<unsigned char>& bytes, bool gzip) {
  if (gzip) {
    gzFile f = gzopen(path.c_str(), "wb");
    gzwrite(f, bytes.data(), bytes.size());
    gzclose(f);
  } else {
    std::ofstream(path, std::ios::binary)
        .write(reinterpret_cast<const char*>(bytes.data()), bytes.size());
  }
}

TEST(IdxFileTest, ReadsUint8PlainAndGzipped) {
  const std::vector<unsigned char> bytes = {0, 0, 0x08, 2, 0, 0, 0, 2, 0, 0, 0, 3,
                                            1, 2, 3, 4, 5, 255};
  for (bool gzip : {false, true}) {
    const std::string path = TempPath(gzip ? "a.gz" : "a.idx");
    WriteFile(path, bytes, gzip);
    absl::StatusOr<Tensor> t = ReadIdxFile(path);
    ASSERT_TRUE(t.ok()) << t.status();
    EXPECT_EQ(t->dtype(), DT_UINT8);
    EXPECT_EQ(t->shape(), TensorShape({2, 3}));
    EXPECT_EQ(t->data<uint8_t>()[5], 255);
  }
}

TEST(IdxFileTest, SwapsBigEndianInts) {
  const std::vector<unsigned char> bytes = {0, 0, 0x0C, 1, 0, 0, 0, 2,
                                            0, 0, 1, 0, 0xFF, 0xFF, 0xFF, 0xFE};
  const std::string path = TempPath("ints.idx");
  WriteFile(path, bytes, false);
  absl::StatusOr<Tensor> t = ReadIdxFile(path);
  ASSERT_TRUE(t.ok()) << t.status();
  EXPECT_EQ(t->data<int32_t>()[0], 256);
  EXPECT_EQ(t->data<int32_t>()[1], -2);
}

TEST(IdxFileTest, BadFilesGiveErrorsNamingTheFile) {
  EXPECT_EQ(ReadIdxFile(TempPath("missing.idx")).status().code(), absl::StatusCode::kNotFound);

  const std::string truncated = TempPath("truncated.idx");
  WriteFile(truncated, {0, 0, 0x08, 1, 0, 0, 0, 10, 1, 2, 3}, false);
  absl::Status s = ReadIdxFile(truncated).status();
  EXPECT_EQ(s.code(), absl::StatusCode::kDataLoss);
  EXPECT_NE(s.message().find("truncated.idx"), std::string::npos) << s;

  const std::string magic = TempPath("magic.idx");
  WriteFile(magic, {1, 2, 3, 4}, false);
  EXPECT_EQ(ReadIdxFile(magic).status().code(), absl::StatusCode::kDataLoss);

  const std::string type = TempPath("type.idx");
  WriteFile(type, {0, 0, 0x42, 1, 0, 0, 0, 1, 0}, false);
  EXPECT_EQ(ReadIdxFile(type).status().code(), absl::StatusCode::kDataLoss);
}

TEST(IdxFileTest, ReadsDebianFashionMnistWhenInstalled) {
  const std::string path = std::string(kFashionMnistDir) + "/t10k-labels-idx1-ubyte.gz";
  if (!std::ifstream(path).good()) {
    GTEST_SKIP() << "dataset-fashion-mnist is not installed (" << path << ")";
  }
  absl::StatusOr<Tensor> labels = ReadIdxFile(path);
  ASSERT_TRUE(labels.ok()) << labels.status();
  EXPECT_EQ(labels->shape(), TensorShape({10000}));
  for (int64_t i = 0; i < labels->NumElements(); ++i) ASSERT_LT(labels->data<uint8_t>()[i], 10);
}

}  // namespace
}  // namespace data
}  // namespace tfd
