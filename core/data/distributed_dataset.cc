// DistributeDataset and DistributeDatasetsFromFunction: both reduce to a
// stream of per-replica elements, which StepIterator deals out R at a time.
#include "core/data/distributed_dataset.h"

#include <iostream>

#include "absl/strings/str_cat.h"
#include "core/data/internal/device_prefetcher.h"
#include "core/data/rebatch.h"
#include "core/data/transforms.h"
#include "core/framework/status.h"

namespace tfd {
namespace data {
namespace {

using StreamFactory = std::function<absl::StatusOr<std::unique_ptr<Iterator>>()>;

// Deals consecutive stream elements to the R local replicas; a step the
// stream cannot fill is padded with empty batches shaped like the step's
// first element (TensorFlow's dummy inputs for replicas without data).
class StepIterator : public DistributedIterator {
 public:
  StepIterator(std::unique_ptr<Iterator> stream, int replicas, std::string op)
      : stream_(std::move(stream)), replicas_(replicas), op_(std::move(op)) {}

  absl::StatusOr<std::optional<std::vector<Element>>> GetNext() override {
    using Result = std::optional<std::vector<Element>>;
    if (done_) return Result();
    std::vector<Element> step;
    step.reserve(replicas_);
    while (static_cast<int>(step.size()) < replicas_) {
      TFD_ASSIGN_OR_RETURN(std::optional<Element> e, stream_->GetNext());
      if (!e) {
        done_ = true;
        break;
      }
      step.push_back(*std::move(e));
    }
    if (step.empty()) return Result();
    for (int j = static_cast<int>(step.size()); j < replicas_; ++j) {
      absl::StatusOr<int64_t> rows = BatchDim(step[0], absl::StrCat(op_, ": replica 0's element"));
      if (!rows.ok()) {
        return InvalidArgument(op_, ": the data ran out for replica ", j,
                               " in the last step, and an empty batch cannot stand in for it: ",
                               rows.status().message());
      }
      TFD_ASSIGN_OR_RETURN(Element empty, SliceElement(step[0], 0, 0));
      step.push_back(std::move(empty));
    }
    return Result(std::move(step));
  }

 private:
  std::unique_ptr<Iterator> stream_;
  const int replicas_;
  const std::string op_;
  bool done_ = false;
};

// Steps read ahead and copied to the replicas' devices.
class PrefetchingStepIterator : public DistributedIterator {
 public:
  PrefetchingStepIterator(std::unique_ptr<DistributedIterator> steps, std::vector<Device*> devices,
                          int64_t buffer_size, const std::string& op)
      : prefetcher_(
            [steps = std::shared_ptr<DistributedIterator>(std::move(steps))]() {
              return steps->GetNext();
            },
            std::move(devices), buffer_size, op) {}

  absl::StatusOr<std::optional<std::vector<Element>>> GetNext() override {
    return prefetcher_.GetNext();
  }

 private:
  internal::DevicePrefetcher prefetcher_;
};

// True when some replica's batches are to be copied to its device.
bool FetchesToDevice(const InputOptions& options) {
  if (!options.fetch_to_device) return false;
  for (Device* d : options.replica_devices) {
    if (d != nullptr && !d->host_memory()) return true;
  }
  return false;
}

absl::Status CheckInputOptions(const char* op, const InputOptions& options, int local_replicas) {
  if (!options.replica_devices.empty() &&
      static_cast<int>(options.replica_devices.size()) != local_replicas) {
    return InvalidArgument(op, ": input_options name ", options.replica_devices.size(),
                           " replica devices for ", local_replicas, " local replicas");
  }
  if (options.per_replica_buffer_size < 1) {
    return InvalidArgument(op, ": per_replica_buffer_size must be >= 1, got ",
                           options.per_replica_buffer_size);
  }
  return absl::OkStatus();
}

class StepDataset : public DistributedDataset {
 public:
  StepDataset(StreamFactory factory, int num_replicas_in_sync, int local_replicas, std::string op,
              std::string debug, InputOptions input_options)
      : factory_(std::move(factory)),
        num_replicas_in_sync_(num_replicas_in_sync),
        local_replicas_(local_replicas),
        op_(std::move(op)),
        debug_(std::move(debug)),
        input_options_(std::move(input_options)) {}

  absl::StatusOr<std::unique_ptr<DistributedIterator>> MakeIterator() const override {
    TFD_ASSIGN_OR_RETURN(std::unique_ptr<Iterator> stream, factory_());
    auto steps = std::make_unique<StepIterator>(std::move(stream), local_replicas_, op_);
    if (!FetchesToDevice(input_options_)) {
      return std::unique_ptr<DistributedIterator>(std::move(steps));
    }
    return std::unique_ptr<DistributedIterator>(std::make_unique<PrefetchingStepIterator>(
        std::move(steps), input_options_.replica_devices, input_options_.per_replica_buffer_size,
        op_));
  }
  int num_replicas_in_sync() const override { return num_replicas_in_sync_; }
  int num_local_replicas() const override { return local_replicas_; }
  std::string DebugString() const override { return debug_; }

 private:
  const StreamFactory factory_;
  const int num_replicas_in_sync_;
  const int local_replicas_;
  const std::string op_;
  const std::string debug_;
  const InputOptions input_options_;
};

StreamFactory FactoryOf(DatasetPtr ds) {
  return [ds]() { return ds->MakeIterator(); };
}

// The OFF policy without a given global batch size: each iterator reads the
// first element to learn G, then rebatches that element and the rest.
StreamFactory InferredRebatchFactory(DatasetPtr dataset, int num_workers, int replicas_per_worker,
                                     int worker_index) {
  return [=]() -> absl::StatusOr<std::unique_ptr<Iterator>> {
    TFD_ASSIGN_OR_RETURN(std::shared_ptr<Iterator> it, dataset->MakeIterator());
    TFD_ASSIGN_OR_RETURN(std::optional<Element> first, it->GetNext());
    if (!first) return IteratorFromFn([] { return std::optional<Element>(); });
    TFD_ASSIGN_OR_RETURN(int64_t global_batch, BatchDim(*first, "DistributeDataset: element 0 of " +
                                                                    dataset->DebugString()));
    if (global_batch == 0) {
      return InvalidArgument("DistributeDataset: the first global batch of ",
                             dataset->DebugString(),
                             " is empty, so the global batch size is unknown; set "
                             "DistributeOptions::global_batch_size");
    }
    TFD_ASSIGN_OR_RETURN(
        std::vector<int64_t> sizes,
        BatchSizesForWorker(global_batch, num_workers, replicas_per_worker, worker_index));
    // A one-use dataset that replays `first` and continues with `it`.
    auto pending = std::make_shared<std::optional<Element>>(std::move(first));
    DatasetPtr resumed = DatasetFromFn(
        dataset->DebugString(), kUnknownCardinality,
        [it, pending]() -> absl::StatusOr<std::unique_ptr<Iterator>> {
          return IteratorFromFn([it, pending]() -> absl::StatusOr<std::optional<Element>> {
            if (*pending) {
              std::optional<Element> e = std::move(*pending);
              pending->reset();
              return e;
            }
            return it->GetNext();
          });
        });
    TFD_ASSIGN_OR_RETURN(DatasetPtr rebatched, Rebatch(resumed, std::move(sizes)));
    return rebatched->MakeIterator();
  };
}

// Worker `index` of `workers` keeps files index, index + workers, ... of
// the dataset's file source (tf.data's FILE rule). NOT_FOUND when the
// dataset reads no files; INVALID_ARGUMENT when some worker would get none.
absl::StatusOr<DatasetPtr> ShardFiles(const Dataset& dataset, int workers, int index,
                                      AutoShardPolicy policy) {
  TFD_ASSIGN_OR_RETURN(FileSource source, dataset.SourceFiles());
  const int64_t num_files = static_cast<int64_t>(source.files.size());
  if (num_files < workers) {
    return InvalidArgument(
        "DistributeDataset: cannot shard ", dataset.DebugString(), " by file (AutoShardPolicy ",
        policy == AutoShardPolicy::kFile ? "FILE" : "AUTO", "): it reads ", num_files,
        " file(s), fewer than the ", workers,
        " workers, so some workers would get no data. Set the auto-shard policy to DATA or "
        "OFF, or split the input into at least as many files as there are workers");
  }
  std::vector<std::string> own;
  for (int64_t f = index; f < num_files; f += workers) own.push_back(source.files[f]);
  return source.rebuild(std::move(own));
}

}  // namespace

absl::StatusOr<int64_t> InputContext::GetPerReplicaBatchSize(int64_t global_batch_size) const {
  if (num_replicas_in_sync_ < 1) {
    return InvalidArgument("InputContext: num_replicas_in_sync must be >= 1, got ",
                           num_replicas_in_sync_);
  }
  if (global_batch_size < 0) {
    return InvalidArgument("InputContext: global_batch_size must be >= 0, got ", global_batch_size);
  }
  if (global_batch_size % num_replicas_in_sync_ != 0) {
    return InvalidArgument("The `global_batch_size` ", global_batch_size,
                           " is not divisible by `num_replicas_in_sync` ", num_replicas_in_sync_);
  }
  return global_batch_size / num_replicas_in_sync_;
}

std::string InputContext::DebugString() const {
  return absl::StrCat("tf.distribute.InputContext(input pipeline id ", input_pipeline_id_,
                      ", total: ", num_input_pipelines_, ")");
}

absl::StatusOr<DistributedDatasetPtr> DistributeDataset(DatasetPtr dataset,
                                                        int num_replicas_in_sync,
                                                        DistributeOptions options) {
  const char* op = "DistributeDataset";
  if (dataset == nullptr) return InvalidArgument(op, ": dataset is null");
  if (num_replicas_in_sync < 1) {
    return InvalidArgument(op, ": num_replicas_in_sync must be >= 1, got ", num_replicas_in_sync);
  }
  const int workers = options.num_workers;
  if (workers < 1 || options.worker_index < 0 || options.worker_index >= workers) {
    return InvalidArgument(op, ": need num_workers >= 1 and 0 <= worker_index < num_workers, got ",
                           workers, " and ", options.worker_index);
  }
  if (num_replicas_in_sync % workers != 0) {
    return InvalidArgument(op,
                           ": every worker must have the same number of replicas, but "
                           "num_replicas_in_sync (",
                           num_replicas_in_sync, ") cannot be divided by num_workers (", workers,
                           ")");
  }
  if (options.global_batch_size < 0) {
    return InvalidArgument(op, ": global_batch_size must be >= 0, got ", options.global_batch_size);
  }
  const AutoShardPolicy policy = options.auto_shard_policy;
  if (policy != AutoShardPolicy::kOff && policy != AutoShardPolicy::kAuto &&
      policy != AutoShardPolicy::kFile && policy != AutoShardPolicy::kData) {
    return InvalidArgument(op, ": unknown auto_shard_policy ", static_cast<int>(policy));
  }
  const int replicas = num_replicas_in_sync / workers;
  TFD_RETURN_IF_ERROR(CheckInputOptions(op, options.input_options, replicas));
  const std::string debug =
      absl::StrCat(op, "(", dataset->DebugString(), ", replicas=", num_replicas_in_sync,
                   ", worker ", options.worker_index, "/", workers, ")");
  if (num_replicas_in_sync == 1) {
    return DistributedDatasetPtr(
        std::make_shared<StepDataset>(FactoryOf(dataset), 1, 1, op, debug, options.input_options));
  }
  // FILE, and AUTO over a file reader: this worker's files, then the same
  // even split of each global batch as OFF.
  bool by_file = policy == AutoShardPolicy::kFile;
  if ((policy == AutoShardPolicy::kFile || policy == AutoShardPolicy::kAuto) && workers > 1) {
    absl::StatusOr<DatasetPtr> own_files =
        ShardFiles(*dataset, workers, options.worker_index, policy);
    if (own_files.ok()) {
      dataset = *std::move(own_files);
      by_file = true;
    } else if (policy == AutoShardPolicy::kFile || !absl::IsNotFound(own_files.status())) {
      return own_files.status();
    } else {
      // TensorFlow's AUTO falls back the same way, and says so in its log.
      std::cerr << op << ": AUTO sharding applies DATA sharding to " << dataset->DebugString()
                << " since FILE sharding is not possible: " << own_files.status().message()
                << std::endl;
    }
  }
  if (policy == AutoShardPolicy::kOff || by_file) {
    if (options.global_batch_size == 0) {
      return DistributedDatasetPtr(std::make_shared<StepDataset>(
          InferredRebatchFactory(dataset, workers, replicas, options.worker_index),
          num_replicas_in_sync, replicas, op, debug, options.input_options));
    }
    TFD_ASSIGN_OR_RETURN(
        std::vector<int64_t> sizes,
        BatchSizesForWorker(options.global_batch_size, workers, replicas, options.worker_index));
    TFD_ASSIGN_OR_RETURN(DatasetPtr rebatched, Rebatch(dataset, std::move(sizes)));
    return DistributedDatasetPtr(std::make_shared<StepDataset>(
        FactoryOf(rebatched), num_replicas_in_sync, replicas, op, debug, options.input_options));
  }
  // AUTO and DATA: the legacy split into N pieces, then every W-th piece.
  TFD_ASSIGN_OR_RETURN(DatasetPtr pieces, LegacyRebatch(dataset, num_replicas_in_sync));
  if (workers > 1) {
    TFD_ASSIGN_OR_RETURN(pieces, Shard(pieces, workers, options.worker_index));
  }
  return DistributedDatasetPtr(
      std::make_shared<StepDataset>(FactoryOf(pieces), num_replicas_in_sync, replicas, op, debug,
                                    options.input_options));
}

absl::StatusOr<DistributedDatasetPtr> DistributeDatasetsFromFunction(
    const DatasetFn& dataset_fn, int num_replicas_in_sync, int num_input_pipelines,
    int input_pipeline_id, const InputOptions& input_options) {
  const char* op = "DistributeDatasetsFromFunction";
  if (!dataset_fn) return InvalidArgument(op, ": dataset_fn is empty");
  if (num_replicas_in_sync < 1) {
    return InvalidArgument(op, ": num_replicas_in_sync must be >= 1, got ", num_replicas_in_sync);
  }
  if (num_input_pipelines < 1 || input_pipeline_id < 0 ||
      input_pipeline_id >= num_input_pipelines) {
    return InvalidArgument(op,
                           ": need num_input_pipelines >= 1 and 0 <= input_pipeline_id < "
                           "num_input_pipelines, got ",
                           num_input_pipelines, " and ", input_pipeline_id);
  }
  if (num_replicas_in_sync % num_input_pipelines != 0) {
    return InvalidArgument(op,
                           ": every input pipeline must feed the same number of replicas, "
                           "but num_replicas_in_sync (",
                           num_replicas_in_sync, ") cannot be divided by num_input_pipelines (",
                           num_input_pipelines, ")");
  }
  TFD_RETURN_IF_ERROR(
      CheckInputOptions(op, input_options, num_replicas_in_sync / num_input_pipelines));
  const InputContext context(num_input_pipelines, input_pipeline_id, num_replicas_in_sync);
  TFD_ASSIGN_OR_RETURN(DatasetPtr dataset, dataset_fn(context));
  if (dataset == nullptr) {
    return InvalidArgument(op, ": dataset_fn returned a null dataset for ", context.DebugString());
  }
  const int replicas = num_replicas_in_sync / num_input_pipelines;
  const std::string debug =
      absl::StrCat(op, "(", dataset->DebugString(), ", ", context.DebugString(), ")");
  return DistributedDatasetPtr(std::make_shared<StepDataset>(
      FactoryOf(dataset), num_replicas_in_sync, replicas, op, debug, input_options));
}

}  // namespace data
}  // namespace tfd
