// What a worker of a parameter-server job runs for the chief's
// ClusterCoordinator: step functions and per-worker dataset functions,
// registered by name in the worker's own process (the chief sends names,
// never code).
//
// A dataset function builds this worker's dataset; the worker keeps the
// iterators the coordinator asks for (one per id, until the coordinator
// releases it) and hands a step the iterator its call names. Step
// functions run one at a time on a worker, so they may use the iterator
// and the worker's model without locks.
#ifndef TFD_CORE_DISTRIBUTE_PS_WORKER_FUNCTIONS_H_
#define TFD_CORE_DISTRIBUTE_PS_WORKER_FUNCTIONS_H_

#include <functional>
#include <map>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "core/data/dataset.h"
#include "core/framework/tensor.h"

namespace tfd {
namespace ps {

// A step: float32 outputs. `iterator` is the worker's iterator the call
// names, null when it names none; `arguments` are the float32 tensors the
// chief scheduled it with (TensorFlow's schedule(fn, args=...)), empty
// when it gave none. OUT_OF_RANGE means the data is done.
using StepFunction = std::function<absl::StatusOr<std::vector<Tensor>>(
    data::Iterator* iterator, const std::vector<Tensor>& arguments)>;

// Builds this worker's dataset (called once per iterator made).
using DatasetFunction = std::function<absl::StatusOr<data::DatasetPtr>()>;

struct WorkerFunctions {
  std::map<std::string, StepFunction> steps;
  std::map<std::string, DatasetFunction> datasets;
};

}  // namespace ps
}  // namespace tfd

#endif  // TFD_CORE_DISTRIBUTE_PS_WORKER_FUNCTIONS_H_
