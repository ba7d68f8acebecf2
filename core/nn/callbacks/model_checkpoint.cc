#include "core/nn/callbacks/model_checkpoint.h"

#include <cmath>
#include <limits>
#include <regex>

#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "core/framework/status.h"
#include "core/nn/callbacks/python_float.h"
#include "core/nn/model.h"
#include "savedmodel/checkpoint/checkpoint.h"
#include "savedmodel/checkpoint/checkpoint_state.h"

namespace tfd {
namespace nn {
namespace {

// One "{name:spec}" field with `value` (integer when `is_int`).
absl::StatusOr<std::string> FormatField(const std::string& name, const std::string& spec,
                                        double value, bool is_int) {
  if (spec.empty()) {
    return is_int ? std::to_string(static_cast<int64_t>(value)) : PythonFloatRepr(value);
  }
  static const std::regex* kSpec = new std::regex("^(0?)([0-9]*)(\\.[0-9]+)?([dfeEgG%]?)$");
  std::smatch m;
  if (!std::regex_match(spec, m, *kSpec)) {
    return InvalidArgument("ModelCheckpoint: unsupported format spec '", spec, "' for {", name,
                           "}");
  }
  std::string type = m[4].str();
  if (type == "d" && !is_int) {
    return InvalidArgument("ModelCheckpoint: {", name, ":", spec,
                           "} formats a float with 'd' (Python refuses it too)");
  }
  if (type.empty()) type = is_int ? "d" : "g";
  if (type == "%") {
    value *= 100;
    type = "f";
  }
  const std::string printf_spec = absl::StrCat("%", m[1].str(), m[2].str(), m[3].str(),
                                               type == "d" ? "lld" : type);
  char buf[128];
  if (type == "d") {
    std::snprintf(buf, sizeof(buf), printf_spec.c_str(), static_cast<long long>(value));
  } else {
    std::snprintf(buf, sizeof(buf), printf_spec.c_str(), value);
  }
  return std::string(buf) + (spec.back() == '%' ? "%" : "");
}

}  // namespace

absl::StatusOr<std::string> FormatCheckpointPath(const std::string& pattern, int64_t epoch,
                                                 const Logs& logs) {
  std::string out;
  for (size_t i = 0; i < pattern.size(); ++i) {
    const char c = pattern[i];
    if ((c == '{' || c == '}') && i + 1 < pattern.size() && pattern[i + 1] == c) {
      out += c;
      ++i;
      continue;
    }
    if (c == '}') return InvalidArgument("ModelCheckpoint: single '}' in \"", pattern, "\"");
    if (c != '{') {
      out += c;
      continue;
    }
    const size_t close = pattern.find('}', i);
    if (close == std::string::npos) {
      return InvalidArgument("ModelCheckpoint: unclosed '{' in \"", pattern, "\"");
    }
    const std::string field = pattern.substr(i + 1, close - i - 1);
    const size_t colon = field.find(':');
    const std::string name = field.substr(0, colon);
    const std::string spec = colon == std::string::npos ? "" : field.substr(colon + 1);
    std::optional<double> value;
    const bool is_int = name == "epoch";
    if (is_int) {
      value = static_cast<double>(epoch);
    } else {
      value = logs.Get(name);
    }
    if (!value) {
      return InvalidArgument("Failed to format this callback filepath: \"", pattern,
                             "\". Reason: '", name, "' is not in the logs");
    }
    TFD_ASSIGN_OR_RETURN(std::string text, FormatField(name, spec, *value, is_int));
    out += text;
    i = close;
  }
  return out;
}

ModelCheckpoint::ModelCheckpoint(ModelCheckpointOptions options) : options_(std::move(options)) {
  maximize_ = options_.mode == "max" ||
              (options_.mode == "auto" && (absl::StrContains(options_.monitor, "acc") ||
                                           absl::StartsWith(options_.monitor, "fmeasure")));
  best_ = options_.initial_value_threshold.value_or(
      maximize_ ? -std::numeric_limits<double>::infinity()
                : std::numeric_limits<double>::infinity());
}

absl::StatusOr<std::shared_ptr<ModelCheckpoint>> ModelCheckpoint::Create(
    ModelCheckpointOptions options) {
  if (options.filepath.empty()) return InvalidArgument("ModelCheckpoint: filepath is empty");
  if (options.mode != "auto" && options.mode != "min" && options.mode != "max") {
    return InvalidArgument("ModelCheckpoint: mode must be auto, min or max, got '", options.mode,
                           "'");
  }
  if (!options.save_weights_only) {
    return absl::UnimplementedError(
        "ModelCheckpoint: saving the whole model (a SavedModel) is not implemented; use "
        "save_weights_only");
  }
  if (absl::EndsWith(options.filepath, ".h5") || absl::EndsWith(options.filepath, ".keras")) {
    return absl::UnimplementedError(
        absl::StrCat("ModelCheckpoint: only TensorFlow checkpoints are written, not ",
                     options.filepath));
  }
  return std::shared_ptr<ModelCheckpoint>(new ModelCheckpoint(std::move(options)));
}

absl::Status ModelCheckpoint::Save(const std::string& path) {
  // Callbacks see a raw model pointer; the checkpoint wants shared owners.
  // The model (and the optimizer it owns) outlive every hook call, so
  // non-owning aliases are safe here.
  std::shared_ptr<Model> trained(std::shared_ptr<void>(), model());
  std::shared_ptr<Optimizer> optimizer(std::shared_ptr<void>(), model()->optimizer());
  savedmodel::Checkpoint checkpoint(trained, optimizer);
  TFD_RETURN_IF_ERROR(checkpoint.Write(path));
  const size_t slash = path.rfind('/');
  const std::string dir = slash == std::string::npos ? "." : path.substr(0, slash);
  tensorflow::CheckpointState state;
  state.set_model_checkpoint_path(path);
  state.add_all_model_checkpoint_paths(path);
  TFD_RETURN_IF_ERROR(savedmodel::WriteCheckpointState(dir, state));
  last_saved_ = path;
  return absl::OkStatus();
}

absl::Status ModelCheckpoint::OnEpochEnd(int epoch, Logs& logs) {
  if (model() == nullptr) return FailedPrecondition("ModelCheckpoint: no model");
  TFD_ASSIGN_OR_RETURN(std::string path, FormatCheckpointPath(options_.filepath, epoch + 1, logs));
  if (!options_.save_best_only) {
    if (options_.verbose > 0) {
      std::fprintf(options_.out, "\nEpoch %d: saving model to %s\n", epoch + 1, path.c_str());
    }
    return Save(path);
  }
  const std::optional<double> current = logs.Get(options_.monitor);
  if (!current) {
    std::fprintf(stderr, "WARNING: Can save best model only with %s available, skipping.\n",
                 options_.monitor.c_str());
    return absl::OkStatus();
  }
  const bool improved = maximize_ ? *current > best_ : *current < best_;
  if (!improved) {
    if (options_.verbose > 0) {
      std::fprintf(options_.out, "\nEpoch %d: %s did not improve from %.5f\n", epoch + 1,
                   options_.monitor.c_str(), best_);
    }
    return absl::OkStatus();
  }
  if (options_.verbose > 0) {
    std::fprintf(options_.out, "\nEpoch %d: %s improved from %.5f to %.5f, saving model to %s\n",
                 epoch + 1, options_.monitor.c_str(), best_, *current, path.c_str());
  }
  best_ = *current;
  return Save(path);
}

}  // namespace nn
}  // namespace tfd
