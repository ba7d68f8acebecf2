// gpu_kernels.txt, the (op, dtype) pairs this CUDA build has GPU kernels
// for, is what the fake-GPU core suite (--config=fake_gpu_suite) registers
// for its fake GPU; a CPU build cannot see the CUDA registry, so the list
// is checked in and this test keeps it true. It reads the kernel registry
// only, so it runs in every CUDA build, GPU or not. When a GPU kernel is
// added or removed it fails; regenerate the list with
//
//   export TFD_WRITE_GPU_KERNEL_LIST=$PWD/core/kernels/cuda/gpu_kernels.txt
//   bazel run --config=cuda //core/kernels/cuda:gpu_kernel_list_test
#include <algorithm>
#include <cstdlib>
#include <fstream>
#include <iterator>
#include <set>
#include <sstream>
#include <string>
#include <vector>

#include "absl/strings/str_split.h"
#include "core/framework/fake_gpu_kernels.h"
#include "core/framework/kernel.h"
#include "gtest/gtest.h"

namespace tfd {
namespace {

constexpr char kListPath[] = "core/kernels/cuda/gpu_kernels.txt";
constexpr char kHeader[] =
    "# (op, dtype) pairs with a GPU kernel in the CUDA build (\"*\": every dtype),\n"
    "# generated from its kernel registry and checked by\n"
    "# //core/kernels/cuda:gpu_kernel_list_test; read by the fake-GPU core suite.\n";

// The list's lines without comments.
std::vector<std::string> Entries(const std::string& text) {
  std::vector<std::string> out;
  for (absl::string_view line : absl::StrSplit(text, '\n', absl::SkipWhitespace())) {
    if (line[0] != '#') out.emplace_back(line);
  }
  return out;
}

TEST(GpuKernelListTest, CheckedInListMatchesTheRegistry) {
  const std::string actual = test::FormatGpuKernelList(RegisteredKernels());
  ASSERT_FALSE(actual.empty()) << "no GPU kernels registered: is cuda_kernels linked?";
  if (const char* out = std::getenv("TFD_WRITE_GPU_KERNEL_LIST")) {
    std::ofstream(out) << kHeader << actual;
    GTEST_SKIP() << "wrote " << out;
  }
  std::ifstream in(kListPath);
  ASSERT_TRUE(in.good()) << "cannot read " << kListPath;
  std::stringstream checked_in;
  checked_in << in.rdbuf();
  // Parses as the fake suite will parse it.
  ASSERT_TRUE(test::ParseGpuKernelList(checked_in.str()).ok());

  const std::vector<std::string> want = Entries(actual);
  const std::vector<std::string> have = Entries(checked_in.str());
  std::vector<std::string> missing, stale;
  std::set_difference(want.begin(), want.end(), have.begin(), have.end(),
                      std::back_inserter(missing));
  std::set_difference(have.begin(), have.end(), want.begin(), want.end(),
                      std::back_inserter(stale));
  EXPECT_TRUE(missing.empty() && stale.empty())
      << kListPath << " is out of date: " << missing.size() << " GPU kernels missing (first: "
      << (missing.empty() ? "-" : missing[0]) << "), " << stale.size()
      << " listed without a kernel (first: " << (stale.empty() ? "-" : stale[0])
      << "). Regenerate it (see the top of gpu_kernel_list_test.cc).";
  EXPECT_TRUE(std::is_sorted(have.begin(), have.end())) << kListPath << " is not sorted";
}

}  // namespace
}  // namespace tfd
