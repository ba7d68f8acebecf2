// Pieces shared by the worker processes of the multi-worker tests
// (mlp_worker, fit_worker, capi_fit_worker): --name=value flags, the
// Fashion-MNIST slice every worker and the single-process reference read,
// and the results file their tests compare (worker_results.h reads it).
#ifndef TFD_TESTS_MULTIWORKER_WORKER_COMMON_H_
#define TFD_TESTS_MULTIWORKER_WORKER_COMMON_H_

#include <cstdint>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "core/distribute/multi_worker_mirrored_strategy.h"
#include "core/distribute/strategy.h"
#include "core/framework/tensor.h"
#include "core/nn/layer.h"

namespace tfd {
namespace multiworker_test {

// Parses argv[1..] as --name=value into the named integers and strings;
// INVALID_ARGUMENT for another form, an unknown name or a bad number.
absl::Status ParseNamedFlags(int argc, char** argv, const std::map<std::string, int*>& ints,
                             const std::map<std::string, std::string*>& strings);

// The first `rows` Fashion-MNIST test images as float [rows, 784] in
// [0, 1], and their labels as int32 [rows].
absl::StatusOr<std::vector<Tensor>> LoadFashionMnistTestRows(int64_t rows);

// The strategy a worker process trains under: "multi_worker" (this task
// of the TF_CONFIG job, with `replicas` local replicas and the tests' short
// timeouts; `*multi_worker` is set to it) or "mirrored" (`replicas` CPU
// replicas in one process; `*multi_worker` is null). `communication`'s
// overlap_backward_pass and bytes_per_pack apply to both (the timeout is
// the tests' own). INVALID_ARGUMENT for another name.
absl::StatusOr<std::unique_ptr<distribute::Strategy>> MakeWorkerStrategy(
    const std::string& name, int replicas, int startup_timeout_s,
    distribute::MultiWorkerMirroredStrategy** multi_worker,
    const distribute::CommunicationOptions& communication = {});

// Writes the results file: "loss <i> <value>" per entry of `losses`,
// "steps_trained <steps>" unless `steps` is negative, then "<weight> <n>"
// and the n values of each weight's first component. Written under a
// temporary name and renamed, so a reader never sees half of it.
absl::Status WriteResults(const std::string& path, const std::vector<double>& losses,
                          int64_t steps, const std::vector<nn::Weight>& weights);

}  // namespace multiworker_test
}  // namespace tfd

#endif  // TFD_TESTS_MULTIWORKER_WORKER_COMMON_H_
