// Runs the SavedModel loader fuzzer's entry function under the normal
// (gcc) build: over the committed corpus (a tfd export and a tf-keras
// SavedModel), over a fresh tfd export, and over truncations and bit flips
// of each, so CI exercises the loader's checks without libFuzzer.
#include <dirent.h>

#include <cstdint>
#include <cstdlib>
#include <random>
#include <string>
#include <vector>

#include "core/io/file.h"
#include "gtest/gtest.h"
#include "savedmodel/export/fashion_cnn_testutil.h"
#include "savedmodel/export/save_model.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size);

namespace tfd {
namespace fuzz {
namespace {

void RunInput(const std::string& input) {
  LLVMFuzzerTestOneInput(reinterpret_cast<const uint8_t*>(input.data()), input.size());
}

std::vector<std::string> Seeds() {
  std::vector<std::string> seeds;
  const std::string dir = "tests/fuzz/corpus/saved_model_loader";
  if (DIR* d = opendir(dir.c_str())) {
    while (dirent* e = readdir(d)) {
      if (e->d_name[0] == '.') continue;
      auto bytes = io::ReadFileToString(dir + "/" + e->d_name);
      EXPECT_TRUE(bytes.ok()) << bytes.status();
      if (bytes.ok()) seeds.push_back(*bytes);
    }
    closedir(d);
  }
  return seeds;
}

TEST(SavedModelLoaderFuzzerTest, CorpusAndAFreshExport) {
  std::vector<std::string> seeds = Seeds();
  ASSERT_EQ(seeds.size(), 2u) << "tests/fuzz/corpus/saved_model_loader holds two seeds";
  auto model = savedmodel::MakeFashionCnn(5);
  ASSERT_TRUE(model.ok());
  const std::string dir = std::string(std::getenv("TEST_TMPDIR")) + "/cnn";
  ASSERT_TRUE(savedmodel::SaveModel(**model, dir).ok());
  seeds.push_back(*io::ReadFileToString(dir + "/saved_model.pb"));
  for (const std::string& seed : seeds) RunInput(seed);
}

TEST(SavedModelLoaderFuzzerTest, TruncationsAndFlipsOfEverySeed) {
  std::mt19937 gen(4321);
  for (const std::string& seed : Seeds()) {
    for (size_t n = 0; n <= seed.size(); n += 1 + n / 16) RunInput(seed.substr(0, n));
    for (int i = 0; i < 200; ++i) {
      std::string bad = seed;
      const int flips = 1 + gen() % 3;
      for (int k = 0; k < flips; ++k) bad[gen() % bad.size()] ^= 1 << (gen() % 8);
      RunInput(bad);
    }
  }
}

TEST(SavedModelLoaderFuzzerTest, TinyAndOddInputs) {
  for (const std::string& input : {std::string(), std::string(1, '\x12'), std::string(64, '\xff'),
                                   std::string("\x12\x00", 2), std::string("\x12\x02\x12\x00", 4)}) {
    RunInput(input);
  }
}

}  // namespace
}  // namespace fuzz
}  // namespace tfd
