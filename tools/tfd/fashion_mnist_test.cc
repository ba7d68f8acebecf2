#include "tools/tfd/fashion_mnist.h"

#include <sys/stat.h>

#include <cstdlib>
#include <fstream>
#include <set>

#include "core/data/transforms.h"
#include "gtest/gtest.h"

namespace tfd {
namespace cli {
namespace {

// Writes an uncompressed uint8 IDX file of shape `dims` holding `bytes`.
void WriteIdx(const std::string& path, const std::vector<uint32_t>& dims,
              const std::vector<uint8_t>& bytes) {
  std::ofstream f(path, std::ios::binary);
  const char header[4] = {0, 0, 0x08, static_cast<char>(dims.size())};
  f.write(header, 4);
  for (uint32_t d : dims) {
    const char be[4] = {static_cast<char>(d >> 24), static_cast<char>(d >> 16),
                        static_cast<char>(d >> 8), static_cast<char>(d)};
    f.write(be, 4);
  }
  f.write(reinterpret_cast<const char*>(bytes.data()), bytes.size());
}

// A directory holding a "train" split of n images whose pixels are
// (i + p) % 256 and whose labels are i % 10.
std::string MakeSplit(const std::string& name, uint32_t n) {
  const std::string dir = std::string(std::getenv("TEST_TMPDIR")) + "/" + name;
  mkdir(dir.c_str(), 0755);
  std::vector<uint8_t> px(n * 28 * 28), labels(n);
  for (uint32_t i = 0; i < n; ++i) {
    for (uint32_t p = 0; p < 28 * 28; ++p) px[i * 784 + p] = static_cast<uint8_t>((i + p) % 256);
    labels[i] = static_cast<uint8_t>(i % 10);
  }
  WriteIdx(dir + "/train-images-idx3-ubyte", {n, 28, 28}, px);
  WriteIdx(dir + "/train-labels-idx1-ubyte", {n}, labels);
  return dir;
}

TEST(FashionMnistTest, LoadsScaledImagesAndLabels) {
  const std::string dir = MakeSplit("ok", 12);
  absl::StatusOr<FashionMnistSplit> split = LoadFashionMnist(dir, "train");
  ASSERT_TRUE(split.ok()) << split.status();
  EXPECT_EQ(split->images.dtype(), DT_FLOAT);
  EXPECT_EQ(split->images.shape(), TensorShape({12, 28, 28, 1}));
  EXPECT_EQ(split->labels.dtype(), DT_INT32);
  EXPECT_EQ(split->labels.shape(), TensorShape({12}));
  const float* px = split->images.data<float>();
  EXPECT_FLOAT_EQ(px[0], 0.0f);
  EXPECT_FLOAT_EQ(px[255], 1.0f);                   // byte 255 -> 1
  EXPECT_FLOAT_EQ(px[784 * 3 + 2], 5.0f / 255.0f);  // image 3, pixel 2
  EXPECT_EQ(split->labels.data<int32_t>()[11], 1);
}

TEST(FashionMnistTest, MissingFilesAreNotFound) {
  absl::StatusOr<FashionMnistSplit> split =
      LoadFashionMnist(std::string(std::getenv("TEST_TMPDIR")) + "/nothing", "train");
  EXPECT_EQ(split.status().code(), absl::StatusCode::kNotFound) << split.status();
}

TEST(FashionMnistTest, RefusesMismatchedLabelCount) {
  const std::string dir = MakeSplit("mismatch", 4);
  WriteIdx(dir + "/train-labels-idx1-ubyte", {3}, {0, 1, 2});
  absl::StatusOr<FashionMnistSplit> split = LoadFashionMnist(dir, "train");
  EXPECT_EQ(split.status().code(), absl::StatusCode::kInvalidArgument);
  EXPECT_NE(split.status().message().find("expected uint8 labels [4], got uint8 [3]"),
            absl::string_view::npos)
      << split.status();
}

TEST(FashionMnistTest, RefusesImagesOfAnotherSize) {
  const std::string dir = MakeSplit("small_images", 2);
  WriteIdx(dir + "/train-images-idx3-ubyte", {2, 8, 8}, std::vector<uint8_t>(128));
  absl::StatusOr<FashionMnistSplit> split = LoadFashionMnist(dir, "train");
  EXPECT_EQ(split.status().code(), absl::StatusCode::kInvalidArgument);
  EXPECT_NE(split.status().message().find("expected uint8 images [n, 28, 28]"),
            absl::string_view::npos)
      << split.status();
}

TEST(FashionMnistTest, RefusesLabelsAboveNine) {
  const std::string dir = MakeSplit("bad_label", 2);
  WriteIdx(dir + "/train-labels-idx1-ubyte", {2}, {3, 12});
  absl::StatusOr<FashionMnistSplit> split = LoadFashionMnist(dir, "train");
  EXPECT_EQ(split.status().code(), absl::StatusCode::kInvalidArgument);
  EXPECT_NE(split.status().message().find("label 12 at 1 is not 0..9"), absl::string_view::npos)
      << split.status();
}

// Collects the labels of every batch of one pass.
std::vector<int32_t> Labels(const data::DatasetPtr& ds, std::vector<int64_t>* batch_sizes) {
  std::vector<int32_t> out;
  absl::StatusOr<std::vector<data::Element>> batches = data::Collect(ds);
  EXPECT_TRUE(batches.ok()) << batches.status();
  if (!batches.ok()) return out;
  for (const data::Element& b : *batches) {
    batch_sizes->push_back(b[1].dim(0));
    for (int64_t i = 0; i < b[1].dim(0); ++i) out.push_back(b[1].data<int32_t>()[i]);
  }
  return out;
}

TEST(FashionMnistTest, TrainingDatasetShufflesReproduciblyWithAPartialLastBatch) {
  absl::StatusOr<FashionMnistSplit> split = LoadFashionMnist(MakeSplit("shuffle", 30), "train");
  ASSERT_TRUE(split.ok()) << split.status();
  std::vector<int64_t> sizes_a, sizes_b, sizes_c, sizes_eval;
  const std::vector<int32_t> a = Labels(*TrainingDataset(*split, 8, 5), &sizes_a);
  const std::vector<int32_t> b = Labels(*TrainingDataset(*split, 8, 5), &sizes_b);
  const std::vector<int32_t> c = Labels(*TrainingDataset(*split, 8, 6), &sizes_c);
  const std::vector<int32_t> eval = Labels(*EvaluationDataset(*split, 8), &sizes_eval);
  EXPECT_EQ(sizes_a, (std::vector<int64_t>{8, 8, 8, 6}));
  EXPECT_EQ(sizes_eval, (std::vector<int64_t>{8, 8, 8, 6}));
  EXPECT_EQ(a, b);  // same seed, same order
  EXPECT_NE(a, c);  // another seed, another order
  std::vector<int32_t> in_order;
  for (int i = 0; i < 30; ++i) in_order.push_back(i % 10);
  EXPECT_EQ(eval, in_order);
  EXPECT_NE(a, in_order);
  EXPECT_EQ(std::multiset<int32_t>(a.begin(), a.end()),
            std::multiset<int32_t>(in_order.begin(), in_order.end()));
}

}  // namespace
}  // namespace cli
}  // namespace tfd
