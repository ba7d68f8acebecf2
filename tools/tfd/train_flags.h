// The flags of `tfd train`: what to train, under which strategy, for how
// long, and where to log.
//
//   tfd train --model=fashion_cnn --strategy=mirrored --replicas=2 --epochs=10
//   TF_CONFIG=... tfd train --strategy=multi_worker_mirrored --backup_dir=/shared/backup
//
// Flags are `--name=value` only; every flag is optional (see TrainFlags for
// the defaults). ParseTrainFlags refuses anything it does not know, so a
// typo never trains with a default silently.
#ifndef TFD_TOOLS_TFD_TRAIN_FLAGS_H_
#define TFD_TOOLS_TFD_TRAIN_FLAGS_H_

#include <cstdint>
#include <string>
#include <vector>

#include "absl/status/statusor.h"

namespace tfd {
namespace cli {

struct TrainFlags {
  std::string model = "fashion_cnn";      // fashion_cnn | fashion_mlp
  // Instead of --model: a Keras model.to_json() file (train_model.h).
  std::string model_json;
  // one_device | mirrored | central_storage | multi_worker_mirrored (one
  // process per task of the cluster TF_CONFIG, SLURM or Open MPI describes)
  // | parameter_server (one process per task of the TF_CONFIG cluster:
  // parameter_server_train.h)
  std::string strategy = "one_device";
  int replicas = 1;                       // CPU replicas (per worker); one_device needs 1
  // Where the replicas run (train_devices.h): auto, as TensorFlow's
  // strategies do by default, is every GPU of the machine, else the CPU;
  // cpu keeps a GPU machine's training on the host (--replicas CPU
  // replicas); gpu insists on GPUs, one replica per GPU.
  std::string devices = "auto";           // auto | cpu | gpu
  // Keras's global dtype policy while the model is built
  // (tf.keras.mixed_precision.set_global_policy): float32 | mixed_float16
  // | mixed_bfloat16. The mixed policies compute in 16 bits and keep
  // float32 weights; mixed_float16 also scales the loss (Compile wraps the
  // optimizer in a LossScaleOptimizer, as Keras's compile() does). A
  // --model_json model is read under it, as set_global_policy before
  // model_from_json: layers whose JSON names a dtype keep it, the model's
  // own policy (which decides the loss scaling) is this one.
  std::string policy = "float32";
  int epochs = 1;
  int64_t batch_size = 64;                // the GLOBAL batch, split between replicas
  int64_t seed = 42;                      // weights and shuffling
  std::string logdir;                     // empty: no TensorBoard or CSV logs
  std::string loop = "fit";               // fit: Model::Fit; custom: custom_training_loop.h
  std::string data_dir = "/usr/share/datasets/fashion-mnist";
  std::string checkpoint_dir;             // non-empty: a checkpoint each epoch, resumed on start
  std::string export_dir;                 // non-empty: a SavedModel written after training
  std::string backup_dir;                 // non-empty: BackupAndRestore there (--loop=fit)
  int64_t save_freq = 0;                  // a backup every N steps; 0: every epoch
  // Multi-worker: every worker must join within startup_timeout_s; a peer
  // silent for heartbeat_timeout_s is declared dead; one collective waits
  // at most collective_timeout_s. The evaluator gives up when no new
  // checkpoint appears for eval_timeout_s.
  int startup_timeout_s = 60;
  int heartbeat_timeout_s = 10;
  int collective_timeout_s = 300;
  int eval_timeout_s = 600;
  // The evaluator's best model, as Keras's ModelCheckpoint(save_best_only)
  // on the evaluator (SidecarEvaluatorModelExport): a SavedModel of the
  // checkpoint whose evaluation was best so far by `monitor` ("loss" or
  // "accuracy", the evaluation's logs) in `mode` (auto: max for accuracy,
  // min otherwise; or min, max). Empty: no export.
  std::string export_best;
  std::string monitor = "loss";
  std::string mode = "auto";
  // parameter_server: steps per epoch (0: one pass of the training set)
  // and how many shards each variable is split into across the ps tasks.
  int64_t steps_per_epoch = 0;
  int ps_shards = 1;
  bool help = false;                      // --help: print the usage and stop
};

// Parses `args` (argv after the subcommand). INVALID_ARGUMENT naming the
// flag for an unknown flag, a positional argument, a missing or malformed
// value, a value out of range (replicas < 1, one_device with several
// replicas, epochs < 1, batch_size < replicas, ...), or flags that do not
// go together (--devices=gpu with --replicas, which counts CPU replicas,
// --model with --model_json, --policy with --model_json (its layers name
// their own dtypes), --backup_dir with --loop=custom,
// --save_freq without
// --backup_dir, --monitor or --mode without --export_best, --export_best
// without multi_worker_mirrored).
absl::StatusOr<TrainFlags> ParseTrainFlags(const std::vector<std::string>& args);

// The usage text of `tfd train`, one flag per line with its default.
std::string TrainUsage();

}  // namespace cli
}  // namespace tfd

#endif  // TFD_TOOLS_TFD_TRAIN_FLAGS_H_
