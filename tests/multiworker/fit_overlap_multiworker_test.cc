// Model::Fit under MultiWorkerMirroredStrategy across real processes
// (fit_worker, every process bounded in time) with the gradient
// all-reduce overlapping the backward pass and without: 3 workers (Gloo's
// ring, where the bucket layout decides the summation order) and 2
// workers of 2 local replicas (the hierarchical communicator) each end
// with the same weights and losses to the bit either way, with buckets
// small enough that the first kernel spans many of them.
#include <filesystem>
#include <memory>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "core/data/idx_file.h"
#include "core/distribute/testing/free_port.h"
#include "gtest/gtest.h"
#include "tests/multiworker/subprocess.h"
#include "tests/multiworker/worker_results.h"

namespace tfd {
namespace {

using testing::ExpectSameFit;
using testing::ReadResults;
using testing::Results;
using testing::Subprocess;

constexpr int kEpochs = 2;
constexpr int kSteps = 4;  // per epoch
constexpr int kGlobalBatch = 24;
const absl::Duration kProcessTimeout = absl::Seconds(120);

class FitOverlapMultiWorkerTest : public ::testing::Test {
 protected:
  void SetUp() override {
    if (!std::filesystem::exists(std::string(data::kFashionMnistDir) +
                                 "/t10k-images-idx3-ubyte.gz")) {
      GTEST_SKIP() << "dataset-fashion-mnist is not installed (" << data::kFashionMnistDir << ")";
    }
  }

  // Runs `workers` fit_worker processes of `local_replicas` replicas each
  // and returns every worker's results.
  std::vector<Results> RunJob(int workers, int local_replicas, bool overlap) {
    absl::StatusOr<std::vector<int>> ports = testing::PickFreePorts(workers);
    EXPECT_TRUE(ports.ok()) << ports.status();
    if (!ports.ok()) return {};
    const std::string out = testing::TestTempPath(
        absl::StrCat("overlap", overlap, "_w", workers, "_r", local_replicas));
    std::vector<std::unique_ptr<Subprocess>> children;
    for (int w = 0; w < workers; ++w) {
      std::vector<std::string> argv = {testing::RunfilePath("tests/multiworker/fit_worker"),
                                       "--strategy=multi_worker",
                                       absl::StrCat("--replicas=", local_replicas),
                                       absl::StrCat("--epochs=", kEpochs),
                                       absl::StrCat("--steps=", kSteps),
                                       absl::StrCat("--global_batch=", kGlobalBatch),
                                       absl::StrCat("--overlap=", overlap ? 1 : 0),
                                       // 8 KiB buckets: the 784x64 kernel spans 25.
                                       "--bytes_per_pack=8192",
                                       "--out=" + out};
      auto child = Subprocess::Start(argv, {{"TF_CONFIG", testing::LocalWorkerTfConfig(*ports, w)}},
                                     absl::StrCat(out, ".log", w));
      EXPECT_TRUE(child.ok()) << child.status();
      if (!child.ok()) return {};
      children.push_back(*std::move(child));
    }
    std::vector<Results> results;
    for (int w = 0; w < workers; ++w) {
      absl::StatusOr<int> code = children[w]->Wait(kProcessTimeout);
      EXPECT_TRUE(code.ok() && *code == 0)
          << "worker " << w << ": " << code.status() << "\n" << children[w]->Log();
      if (!code.ok() || *code != 0) return {};
      results.push_back(ReadResults(absl::StrCat(out, ".worker", w)));
    }
    return results;
  }

  void ExpectBitIdentical(int workers, int local_replicas) {
    const std::vector<Results> off = RunJob(workers, local_replicas, /*overlap=*/false);
    const std::vector<Results> on = RunJob(workers, local_replicas, /*overlap=*/true);
    ASSERT_EQ(off.size(), static_cast<size_t>(workers));
    ASSERT_EQ(on.size(), static_cast<size_t>(workers));
    ASSERT_EQ(off[0].losses.size(), static_cast<size_t>(kEpochs));
    EXPECT_LT(off[0].losses.back(), off[0].losses.front());  // It learns.
    for (int w = 0; w < workers; ++w) {
      SCOPED_TRACE(absl::StrCat("worker ", w));
      // The files hold float32 values with 9 significant digits, which
      // round-trip exactly: tolerance 0 is bit-identity.
      ExpectSameFit(on[w], off[0], kEpochs * kSteps, 0.0);
      ExpectSameFit(off[w], off[0], kEpochs * kSteps, 0.0);
    }
  }
};

TEST_F(FitOverlapMultiWorkerTest, ThreeWorkersAreBitIdenticalWithOverlapOnAndOff) {
  ExpectBitIdentical(3, 1);
}

TEST_F(FitOverlapMultiWorkerTest, TwoWorkersOfTwoReplicasAreBitIdenticalWithOverlapOnAndOff) {
  ExpectBitIdentical(2, 2);
}

}  // namespace
}  // namespace tfd
