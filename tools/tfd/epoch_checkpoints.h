// Checkpoints of `tfd train --checkpoint_dir=D`: a tf.train.Checkpoint of
// the model and its optimizer, saved through a CheckpointManager at the end
// of every epoch, and on start restored from D's latest checkpoint so that
// training resumes where it stopped.
//
// The epochs already done are the checkpoint's save_counter: one save per
// epoch, counted in the checkpoint itself, so the count survives restarts
// exactly as the weights and the optimizer's slots and step do. Under
// mixed_float16 the optimizer is a LossScaleOptimizer, whose loss scale and
// good-steps count are saved and restored too.
//
// In a multi-worker job every worker saves, as Keras's callbacks do: the
// chief to D, the others to D/workertemp_<task> (worker_write_location.h),
// removed again after each save. Every worker restores D's latest, so all
// start from the same weights.
//
//   TFD_ASSIGN_OR_RETURN(auto checkpoints, EpochCheckpoints::Create(model, dir, out));
//   TFD_ASSIGN_OR_RETURN(int done, checkpoints->RestoreLatest(strategy));
//   fit.initial_epoch = done;
//   fit.callbacks.push_back(checkpoints->SaveEachEpoch());
#ifndef TFD_TOOLS_TFD_EPOCH_CHECKPOINTS_H_
#define TFD_TOOLS_TFD_EPOCH_CHECKPOINTS_H_

#include <cstdint>
#include <cstdio>
#include <memory>
#include <string>

#include "absl/status/statusor.h"
#include "core/distribute/cluster_resolver.h"
#include "core/distribute/strategy.h"
#include "core/nn/callbacks/callback.h"
#include "core/nn/model.h"
#include "savedmodel/checkpoint/checkpoint.h"
#include "savedmodel/checkpoint/checkpoint_manager.h"

namespace tfd {
namespace cli {

// n of a checkpoint prefix ".../ckpt-<n>"; 0 when it does not end in
// "-<n>". A CheckpointManager's n is the checkpoint's save_counter.
int64_t CheckpointNumber(const std::string& prefix);

class EpochCheckpoints : public std::enable_shared_from_this<EpochCheckpoints> {
 public:
  // `model` must be compiled (its optimizer is checkpointed with it).
  // Creates `dir`; errors of reading an existing state file there.
  // Progress lines go to `out`. `task` says where this process saves (a
  // default ClusterInfo is a lone chief).
  static absl::StatusOr<std::shared_ptr<EpochCheckpoints>> Create(
      std::shared_ptr<nn::Model> model, const std::string& dir, std::FILE* out,
      const distribute::ClusterInfo& task = {});
  // The same for a model trained by a custom loop with its own
  // `optimizer`, which must outlive the checkpoints.
  static absl::StatusOr<std::shared_ptr<EpochCheckpoints>> Create(
      std::shared_ptr<nn::Model> model, nn::Optimizer* optimizer, const std::string& dir,
      std::FILE* out, const distribute::ClusterInfo& task = {});

  // Restores the latest checkpoint in the directory, if any, under
  // `strategy`'s scope (the optimizer's slots are made there), and prints
  // what it restored (the epochs, and a LossScaleOptimizer's scale and
  // good steps). Returns the epochs it holds (0 when there is none). Checkpoint::Restore's errors,
  // e.g. INVALID_ARGUMENT for a checkpoint of another model; in a
  // multi-worker job (a collective: every worker calls it),
  // FAILED_PRECONDITION, before restoring anything, when the workers see
  // different latest checkpoints.
  absl::StatusOr<int> RestoreLatest(distribute::Strategy& strategy);

  // A callback that saves a checkpoint at the end of each epoch.
  std::shared_ptr<nn::Callback> SaveEachEpoch();

 private:
  EpochCheckpoints(std::shared_ptr<nn::Model> model, nn::Optimizer* optimizer, std::FILE* out,
                   const distribute::ClusterInfo& task);
  absl::Status Save(int epoch);
  // A non-chief's save, to its temporary directory, removed afterwards.
  absl::StatusOr<std::string> SaveToTemporaryLocation();

  savedmodel::Checkpoint checkpoint_;
  nn::Optimizer* const optimizer_;
  std::unique_ptr<savedmodel::CheckpointManager> manager_;
  std::FILE* const out_;
  const distribute::ClusterInfo task_;
};

}  // namespace cli
}  // namespace tfd

#endif  // TFD_TOOLS_TFD_EPOCH_CHECKPOINTS_H_
