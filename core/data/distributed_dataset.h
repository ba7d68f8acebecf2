// Distributed input: how a dataset feeds the replicas of a strategy, as
// tf.distribute does it. Two entry points, as TensorFlow's:
//
// - DistributeDataset (experimental_distribute_dataset): the dataset yields
//   GLOBAL batches; each is split between the num_replicas_in_sync replicas
//   (see Note [How a global batch is split]). Pieces are views of the
//   global batch (Tensor::Slice), never copies.
// - DistributeDatasetsFromFunction (distribute_datasets_from_function): a
//   function builds each input pipeline's dataset from an InputContext and
//   already batches it per replica; this worker's replicas take consecutive
//   elements.
//
// Either way, one step's input is a std::vector<Element> with one element
// per local replica (replica j of this worker at index j). When the data
// runs out in the middle of a step, the replicas left without data get
// EMPTY batches (dim 0 = 0, the other dims and dtypes as the rest of the
// data), as TensorFlow's distributed iterator does, so every replica still
// runs the step. After the last step GetNext returns nullopt.
//
// On GPU replicas (InputOptions::replica_devices), each step is read
// ahead on a background thread and each replica's batch is copied to its
// device beside the computation (internal/device_prefetcher.h), as
// TensorFlow's MultiDeviceIterator does by default: a step handed out is
// on the replicas' devices, and each device waits for its copy. Host
// replicas (CPU logical devices) get their batches as before.
//
// Thread safety: datasets are immutable and may be iterated by many
// iterators; one iterator is used by one thread at a time.
//
//   TFD_ASSIGN_OR_RETURN(auto dist, DistributeDataset(batched, /*num_replicas_in_sync=*/2));
//   TFD_ASSIGN_OR_RETURN(auto it, dist->MakeIterator());
//   while (true) {
//     TFD_ASSIGN_OR_RETURN(std::optional<std::vector<Element>> step, it->GetNext());
//     if (!step) break;
//     // (*step)[0] feeds replica 0, (*step)[1] replica 1.
//   }
//
// Note [How a global batch is split]
// TensorFlow rebatches the global batches and then auto-shards the result
// across workers. With the default policy (AUTO) on a dataset without file
// readers, AUTO falls back to DATA, and DATA sharding rewrites the rebatch
// to the legacy one. So, with N = num_replicas_in_sync, W workers and
// R = N / W replicas per worker:
//   DATA, and AUTO on a dataset without files (or with one worker): each
//     global batch of b rows is cut into N pieces of
//     s = ceil(b / N) rows: piece i is rows [min(i*s, b), min((i+1)*s, b)),
//     so a final partial batch fills the first replicas with s rows and
//     leaves later ones short or empty (b = 5, N = 4: 2, 2, 1, 0). Worker w
//     keeps pieces w, w+W, w+2W, ... (Shard(W, w) over the pieces), and its
//     replica j gets piece w + j*W of each global batch.
//   OFF (and FILE with one worker, which TensorFlow leaves unsharded): every
//     worker reads the whole dataset and tf.data's rebatch cuts it into
//     BatchSizesForWorker(G, W, R, w) pieces, G being the global batch size
//     (DistributeOptions::global_batch_size, else dim 0 of the first
//     element). With b = G every piece is a view; a final partial batch
//     fills replicas in order with full pieces (G = 8, N = 2, b = 3: 3, 0).
//   FILE, and AUTO on a dataset that reads files, with W > 1: worker w
//     keeps files w, w+W, w+2W, ... of the pipeline's file reader
//     (TFRecordDataset, CsvDataset; see Dataset::SourceFiles), the pipeline
//     is rebuilt over those, and its batches are cut as with OFF, so each
//     worker takes its share of rows from its own files. Fewer files than
//     workers is INVALID_ARGUMENT (TensorFlow fails the same way, when it
//     iterates). FILE on a dataset without files is NOT_FOUND; AUTO then
//     falls back to DATA and writes a line saying so to stderr.
// With N = 1 the batches pass through unchanged.
#ifndef TFD_CORE_DATA_DISTRIBUTED_DATASET_H_
#define TFD_CORE_DATA_DISTRIBUTED_DATASET_H_

#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "core/data/dataset.h"
#include "core/framework/device.h"

namespace tfd {
namespace data {

// What an input function needs to know about its pipeline, as
// tf.distribute.InputContext.
class InputContext {
 public:
  InputContext(int num_input_pipelines = 1, int input_pipeline_id = 0, int num_replicas_in_sync = 1)
      : num_input_pipelines_(num_input_pipelines),
        input_pipeline_id_(input_pipeline_id),
        num_replicas_in_sync_(num_replicas_in_sync) {}

  int num_input_pipelines() const { return num_input_pipelines_; }
  int input_pipeline_id() const { return input_pipeline_id_; }
  int num_replicas_in_sync() const { return num_replicas_in_sync_; }

  // global_batch_size / num_replicas_in_sync. INVALID_ARGUMENT with
  // TensorFlow's message when it does not divide evenly.
  absl::StatusOr<int64_t> GetPerReplicaBatchSize(int64_t global_batch_size) const;

  // "tf.distribute.InputContext(input pipeline id 0, total: 2)".
  std::string DebugString() const;

 private:
  int num_input_pipelines_;
  int input_pipeline_id_;
  int num_replicas_in_sync_;
};

// tf.data.experimental.AutoShardPolicy, with TensorFlow's values.
enum class AutoShardPolicy : int { kOff = -1, kAuto = 0, kFile = 1, kData = 2 };

// tf.distribute.InputOptions: where each local replica's batches go.
struct InputOptions {
  // Local replica j's device; empty: none (host tensors, as without
  // options). When given, one per local replica.
  std::vector<Device*> replica_devices;
  // experimental_fetch_to_device: copy each batch to its replica's device
  // ahead of the step. Devices in host memory are never copied to.
  bool fetch_to_device = true;
  // experimental_per_replica_buffer_size: steps copied ahead.
  int64_t per_replica_buffer_size = 1;
};

struct DistributeOptions {
  // This process's place among the workers; num_replicas_in_sync must be a
  // multiple of num_workers.
  int num_workers = 1;
  int worker_index = 0;
  AutoShardPolicy auto_shard_policy = AutoShardPolicy::kAuto;
  // Used by the OFF policy only (see the Note); 0 means dim 0 of the first
  // element.
  int64_t global_batch_size = 0;
  InputOptions input_options;
};

class DistributedIterator {
 public:
  virtual ~DistributedIterator() = default;
  // The next step's elements, one per local replica, or nullopt at the end
  // (and forever after). Errors from the dataset pass through unchanged.
  virtual absl::StatusOr<std::optional<std::vector<Element>>> GetNext() = 0;
};

class DistributedDataset {
 public:
  virtual ~DistributedDataset() = default;
  // A fresh iterator from the beginning.
  virtual absl::StatusOr<std::unique_ptr<DistributedIterator>> MakeIterator() const = 0;
  virtual int num_replicas_in_sync() const = 0;
  // Replicas fed by this process (num_replicas_in_sync / workers).
  virtual int num_local_replicas() const = 0;
  virtual std::string DebugString() const = 0;
};

using DistributedDatasetPtr = std::shared_ptr<const DistributedDataset>;

// Splits each global batch of `dataset` between the replicas (see the Note).
// INVALID_ARGUMENT for a null dataset, num_replicas_in_sync < 1, bad worker
// counts, input_options with a device count other than the local replicas
// or a buffer size < 1, fewer files than workers under FILE (or AUTO over
// files), or
// (when iterating) elements that are not batches; NOT_FOUND for FILE across
// several workers on a dataset that reads no files.
absl::StatusOr<DistributedDatasetPtr> DistributeDataset(DatasetPtr dataset,
                                                        int num_replicas_in_sync,
                                                        DistributeOptions options = {});

// Calls `dataset_fn` once, now, with InputContext(num_input_pipelines,
// input_pipeline_id, num_replicas_in_sync) to build this pipeline's dataset,
// whose elements are per-replica batches. Its num_replicas_in_sync /
// num_input_pipelines local replicas take consecutive elements (replica j
// gets elements j, j+R, ...). No auto-sharding: the function shards, as in
// TensorFlow. INVALID_ARGUMENT for bad counts or a null dataset, or bad
// `input_options`; the function's own error is returned as is.
using DatasetFn = std::function<absl::StatusOr<DatasetPtr>(const InputContext&)>;
absl::StatusOr<DistributedDatasetPtr> DistributeDatasetsFromFunction(
    const DatasetFn& dataset_fn, int num_replicas_in_sync, int num_input_pipelines = 1,
    int input_pipeline_id = 0, const InputOptions& input_options = {});

}  // namespace data
}  // namespace tfd

#endif  // TFD_CORE_DATA_DISTRIBUTED_DATASET_H_
