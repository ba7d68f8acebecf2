#include "tools/tfd/train_flags.h"

#include <functional>
#include <map>

#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "core/framework/status.h"

namespace tfd {
namespace cli {
namespace {

const std::vector<std::string>& Models() {
  static const auto* models = new std::vector<std::string>{"fashion_cnn", "fashion_mlp"};
  return *models;
}
const std::vector<std::string>& Strategies() {
  static const auto* strategies =
      new std::vector<std::string>{"one_device", "mirrored", "central_storage",
                                   "multi_worker_mirrored", "parameter_server"};
  return *strategies;
}
const std::vector<std::string>& Monitors() {
  static const auto* monitors = new std::vector<std::string>{"loss", "accuracy"};
  return *monitors;
}
const std::vector<std::string>& Modes() {
  static const auto* modes = new std::vector<std::string>{"auto", "min", "max"};
  return *modes;
}
const std::vector<std::string>& DeviceChoices() {
  static const auto* devices = new std::vector<std::string>{"auto", "cpu", "gpu"};
  return *devices;
}
const std::vector<std::string>& Policies() {
  static const auto* policies =
      new std::vector<std::string>{"float32", "mixed_float16", "mixed_bfloat16"};
  return *policies;
}
const std::vector<std::string>& Loops() {
  static const auto* loops = new std::vector<std::string>{"fit", "custom"};
  return *loops;
}

absl::Status NonEmpty(const std::string& flag, const std::string& value, std::string* out) {
  if (value.empty()) return InvalidArgument("--", flag, " must not be empty");
  *out = value;
  return absl::OkStatus();
}

absl::Status OneOf(const std::string& flag, const std::string& value,
                   const std::vector<std::string>& allowed, std::string* out) {
  for (const std::string& a : allowed) {
    if (value == a) {
      *out = value;
      return absl::OkStatus();
    }
  }
  return InvalidArgument("--", flag, " must be one of ", absl::StrJoin(allowed, ", "), ", got '",
                         value, "'");
}

template <typename Int>
absl::Status AtLeast(const std::string& flag, const std::string& value, Int min, Int* out) {
  Int v;
  if (!absl::SimpleAtoi(value, &v) || v < min) {
    return InvalidArgument("--", flag, " must be an integer >= ", min, ", got '", value, "'");
  }
  *out = v;
  return absl::OkStatus();
}

// Each flag's setter, by name.
using Setter = std::function<absl::Status(const std::string&, TrainFlags*)>;
const std::map<std::string, Setter>& Setters() {
  static const auto* setters = new std::map<std::string, Setter>{
      {"model", [](const std::string& v, TrainFlags* f) {
         return OneOf("model", v, Models(), &f->model);
       }},
      {"model_json", [](const std::string& v, TrainFlags* f) {
         return NonEmpty("model_json", v, &f->model_json);
       }},
      {"strategy", [](const std::string& v, TrainFlags* f) {
         return OneOf("strategy", v, Strategies(), &f->strategy);
       }},
      {"loop", [](const std::string& v, TrainFlags* f) {
         return OneOf("loop", v, Loops(), &f->loop);
       }},
      {"replicas", [](const std::string& v, TrainFlags* f) {
         return AtLeast("replicas", v, 1, &f->replicas);
       }},
      {"devices", [](const std::string& v, TrainFlags* f) {
         return OneOf("devices", v, DeviceChoices(), &f->devices);
       }},
      {"policy", [](const std::string& v, TrainFlags* f) {
         return OneOf("policy", v, Policies(), &f->policy);
       }},
      {"epochs", [](const std::string& v, TrainFlags* f) {
         return AtLeast("epochs", v, 1, &f->epochs);
       }},
      {"batch_size", [](const std::string& v, TrainFlags* f) {
         return AtLeast<int64_t>("batch_size", v, 1, &f->batch_size);
       }},
      {"seed", [](const std::string& v, TrainFlags* f) {
         return AtLeast<int64_t>("seed", v, 0, &f->seed);
       }},
      {"logdir", [](const std::string& v, TrainFlags* f) {
         f->logdir = v;
         return absl::OkStatus();
       }},
      {"data_dir", [](const std::string& v, TrainFlags* f) {
         return NonEmpty("data_dir", v, &f->data_dir);
       }},
      {"checkpoint_dir", [](const std::string& v, TrainFlags* f) {
         return NonEmpty("checkpoint_dir", v, &f->checkpoint_dir);
       }},
      {"export_dir", [](const std::string& v, TrainFlags* f) {
         return NonEmpty("export_dir", v, &f->export_dir);
       }},
      {"backup_dir", [](const std::string& v, TrainFlags* f) {
         return NonEmpty("backup_dir", v, &f->backup_dir);
       }},
      {"save_freq", [](const std::string& v, TrainFlags* f) {
         // Keras's save_freq: "epoch" or a number of steps.
         if (v == "epoch") {
           f->save_freq = 0;
           return absl::OkStatus();
         }
         return AtLeast<int64_t>("save_freq", v, 1, &f->save_freq);
       }},
      {"startup_timeout_s", [](const std::string& v, TrainFlags* f) {
         return AtLeast("startup_timeout_s", v, 1, &f->startup_timeout_s);
       }},
      {"heartbeat_timeout_s", [](const std::string& v, TrainFlags* f) {
         return AtLeast("heartbeat_timeout_s", v, 1, &f->heartbeat_timeout_s);
       }},
      {"collective_timeout_s", [](const std::string& v, TrainFlags* f) {
         return AtLeast("collective_timeout_s", v, 1, &f->collective_timeout_s);
       }},
      {"eval_timeout_s", [](const std::string& v, TrainFlags* f) {
         return AtLeast("eval_timeout_s", v, 1, &f->eval_timeout_s);
       }},
      {"export_best", [](const std::string& v, TrainFlags* f) {
         return NonEmpty("export_best", v, &f->export_best);
       }},
      {"monitor", [](const std::string& v, TrainFlags* f) {
         return OneOf("monitor", v, Monitors(), &f->monitor);
       }},
      {"mode", [](const std::string& v, TrainFlags* f) {
         return OneOf("mode", v, Modes(), &f->mode);
       }},
      {"steps_per_epoch", [](const std::string& v, TrainFlags* f) {
         return AtLeast<int64_t>("steps_per_epoch", v, 1, &f->steps_per_epoch);
       }},
      {"ps_shards", [](const std::string& v, TrainFlags* f) {
         return AtLeast("ps_shards", v, 1, &f->ps_shards);
       }},
  };
  return *setters;
}

}  // namespace

absl::StatusOr<TrainFlags> ParseTrainFlags(const std::vector<std::string>& args) {
  TrainFlags flags;
  bool model_given = false;
  for (const std::string& arg : args) {
    if (arg == "--help" || arg == "-h") {
      flags.help = true;
      continue;
    }
    if (arg.rfind("--", 0) != 0) return InvalidArgument("unexpected argument '", arg, "'");
    const size_t eq = arg.find('=');
    const std::string name = arg.substr(2, eq == std::string::npos ? std::string::npos : eq - 2);
    auto setter = Setters().find(name);
    if (setter == Setters().end()) return InvalidArgument("unknown flag --", name);
    if (eq == std::string::npos) return InvalidArgument("--", name, " needs a value (--", name, "=...)");
    model_given = model_given || name == "model";
    TFD_RETURN_IF_ERROR(setter->second(arg.substr(eq + 1), &flags));
  }
  const TrainFlags defaults;
  if (model_given && !flags.model_json.empty()) {
    return InvalidArgument("give --model or --model_json, not both");
  }
  if (flags.strategy == "one_device" && flags.replicas != 1) {
    return InvalidArgument("--strategy=one_device runs one replica, got --replicas=",
                           flags.replicas);
  }
  // On GPUs each GPU is one replica, as in TensorFlow; --replicas splits
  // the host's cores and means nothing there.
  if (flags.devices == "gpu" && flags.replicas != 1) {
    return InvalidArgument("--replicas=", flags.replicas,
                           " sets CPU replicas; --devices=gpu runs one replica per GPU");
  }
  if (flags.devices == "gpu" && flags.strategy == "parameter_server") {
    return InvalidArgument("--strategy=parameter_server trains on the CPU; drop --devices=gpu");
  }
  // BackupAndRestore is a callback of Fit, as in Keras; a custom loop
  // resumes from --checkpoint_dir, as TensorFlow's custom-loop tutorials do.
  if (flags.loop != "fit" && !flags.backup_dir.empty()) {
    return InvalidArgument(
        "--backup_dir needs --loop=fit (a custom loop resumes from --checkpoint_dir)");
  }
  if (flags.export_best.empty() &&
      (flags.monitor != defaults.monitor || flags.mode != defaults.mode)) {
    return InvalidArgument("--monitor and --mode choose what --export_best keeps; give --export_best");
  }
  if (!flags.export_best.empty() && flags.strategy != "multi_worker_mirrored") {
    return InvalidArgument(
        "--export_best is written by the evaluator task of --strategy=multi_worker_mirrored");
  }
  if (flags.save_freq > 0 && flags.backup_dir.empty()) {
    return InvalidArgument("--save_freq sets how often --backup_dir is written; give --backup_dir");
  }
  if ((flags.steps_per_epoch > 0 || flags.ps_shards > 1) && flags.strategy != "parameter_server") {
    return InvalidArgument("--steps_per_epoch and --ps_shards need --strategy=parameter_server");
  }
  if (flags.batch_size < flags.replicas) {
    return InvalidArgument("--batch_size (", flags.batch_size,
                           ") is the global batch and must be at least --replicas (",
                           flags.replicas, ")");
  }
  return flags;
}

std::string TrainUsage() {
  const TrainFlags d;
  return absl::StrCat(
      "usage: tfd train [--flag=value ...]\n"
      "Trains a model on Fashion-MNIST and evaluates it on the test set.\n"
      "  --model=", absl::StrJoin(Models(), "|"), "  (default ", d.model, ")\n",
      "  --strategy=", absl::StrJoin(Strategies(), "|"), "  (default ", d.strategy, ")\n",
      "  --model_json=F    instead of --model: a Keras model.to_json() file; one 28x28\n"
      "                    image in, 10 logits out\n",
      "  --devices=", absl::StrJoin(DeviceChoices(), "|"),
      "  where replicas run (default ", d.devices, ")\n",
      "                    auto: every GPU of the machine, one replica each, else the CPU\n",
      "                    (TensorFlow's default); cpu: the host even on a GPU machine;\n",
      "                    gpu: GPUs or an error. one_device takes GPU:0. parameter_server\n",
      "                    trains on the CPU. A CPU-only build sees no GPU.\n",
      "  --replicas=N      CPU replicas (of each worker) (default ", d.replicas,
      "); on a GPU machine\n",
      "                    with --devices=auto, N > 1 is refused: give --devices=cpu\n",
      "  --policy=", absl::StrJoin(Policies(), "|"), "  Keras's global dtype policy\n",
      "                    for the model (default ", d.policy, "); mixed_float16 adds loss\n",
      "                    scaling (a LossScaleOptimizer), as Keras's compile() does. With\n",
      "                    --model_json the layers keep the dtype their JSON names; the\n",
      "                    model (so its loss scaling) and layers naming none take --policy\n",
      "  --epochs=E        (default ", d.epochs, ")\n",
      "  --batch_size=B    global batch size (default ", d.batch_size, ")\n",
      "  --seed=S          weights and shuffling (default ", d.seed, ")\n",
      "  --logdir=D        TensorBoard and CSV logs (default: none)\n",
      "  --loop=", absl::StrJoin(Loops(), "|"), "  (default ", d.loop, ")\n",
      "  --data_dir=D      the Fashion-MNIST IDX files (default ", d.data_dir, ")\n",
      "  --checkpoint_dir=D  a checkpoint every epoch; resumes from D's latest\n",
      "  --export_dir=E    a SavedModel of the trained model (default: none)\n",
      "  --backup_dir=D    BackupAndRestore: a restarted job resumes from D (--loop=fit)\n",
      "  --save_freq=N|epoch  a backup every N steps or every epoch (default epoch)\n",
      "multi_worker_mirrored runs as the task TF_CONFIG (or SLURM, Open MPI) names: chief\n"
      "and workers train together, an evaluator evaluates each new checkpoint of\n"
      "--checkpoint_dir and writes <logdir>/evaluator.\n",
      "  --startup_timeout_s=S    every worker joins within S seconds (default ",
      d.startup_timeout_s, ")\n",
      "  --heartbeat_timeout_s=S  a silent worker is declared dead after S (default ",
      d.heartbeat_timeout_s, ")\n",
      "  --collective_timeout_s=S the longest wait of one collective (default ",
      d.collective_timeout_s, ")\n",
      "  --eval_timeout_s=S       the evaluator's longest wait for a checkpoint (default ",
      d.eval_timeout_s, ")\n",
      "  --export_best=E   the evaluator exports the best checkpoint's SavedModel to E\n",
      "  --monitor=", absl::StrJoin(Monitors(), "|"), "  the evaluation log --export_best compares (default ",
      d.monitor, ")\n",
      "  --mode=", absl::StrJoin(Modes(), "|"), "  best is the min or max of --monitor; auto: max for accuracy (default ",
      d.mode, ")\n",
      "parameter_server runs as the task TF_CONFIG names: ps, worker or chief.\n",
      "  --steps_per_epoch=N  parameter_server: steps per epoch (default: one pass)\n",
      "  --ps_shards=K     parameter_server: shards per variable across the ps tasks (default 1)\n");
}

}  // namespace cli
}  // namespace tfd
