// Reads TF_CONFIG's JSON into a ClusterSpec and task, then applies the
// shared rank rules (ResolveCluster).
#include "core/distribute/tf_config_resolver.h"

#include <cmath>

#include "absl/strings/ascii.h"
#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "core/framework/status.h"
#include "core/io/json.h"

namespace tfd {
namespace distribute {
namespace {

using io::JsonValue;

constexpr const char* kSource = "TF_CONFIG";

// An integer written as a JSON integer or a string of digits.
absl::StatusOr<int> IndexValue(const JsonValue& v, const std::string& field) {
  int value = -1;
  if (v.is_number()) {
    const double d = v.number_value();
    if (std::floor(d) == d && d >= 0 && d <= 1e9) return static_cast<int>(d);
  } else if (v.is_string() && absl::SimpleAtoi(v.text(), &value) && value >= 0) {
    return value;
  }
  return InvalidArgument(kSource, ": ", field, " must be a non-negative integer, got ",
                         v.is_string() || v.is_number() ? absl::StrCat("\"", v.text(), "\"")
                                                        : std::string(v.TypeName()));
}

absl::StatusOr<std::optional<std::string>> OptionalString(const JsonValue& root, const char* key) {
  const JsonValue* v = root.Find(key);
  if (v == nullptr || v->is_null()) return std::optional<std::string>();
  if (!v->is_string()) {
    return InvalidArgument(kSource, ": ", key, " must be a string, got ", v->TypeName());
  }
  return std::optional<std::string>(v->text());
}

absl::Status AddJobTask(ClusterSpec* spec, const std::string& job, int index,
                        const JsonValue& address, const std::string& field) {
  if (!address.is_string()) {
    return InvalidArgument(kSource, ": ", field, " must be a \"host:port\" string, got ",
                           address.TypeName());
  }
  absl::Status valid = ValidateAddress(address.text());
  if (!valid.ok()) {
    return InvalidArgument(kSource, ": ", field, " \"", address.text(), "\" ", valid.message());
  }
  return spec->AddTask(job, index, address.text());
}

absl::StatusOr<ClusterSpec> ParseCluster(const JsonValue& cluster) {
  if (!cluster.is_object()) {
    return InvalidArgument(kSource, ": cluster must be an object of job name -> addresses, got ",
                           cluster.TypeName());
  }
  ClusterSpec spec;
  for (const auto& [job, tasks] : cluster.members()) {
    const std::string field = "cluster." + job;
    if (spec.HasJob(job)) return InvalidArgument(kSource, ": ", field, " appears twice");
    if (tasks.is_array()) {
      for (size_t i = 0; i < tasks.items().size(); ++i) {
        TFD_RETURN_IF_ERROR(AddJobTask(&spec, job, static_cast<int>(i), tasks.items()[i],
                                       absl::StrCat(field, "[", i, "]")));
      }
    } else if (tasks.is_object()) {
      for (const auto& [key, address] : tasks.members()) {
        const std::string task_field = absl::StrCat(field, "[\"", key, "\"]");
        TFD_ASSIGN_OR_RETURN(int index, IndexValue(JsonValue::String(key), task_field + " key"));
        if (spec.TaskAddress(job, index).ok()) {
          return InvalidArgument(kSource, ": ", field, " lists task ", index, " twice");
        }
        TFD_RETURN_IF_ERROR(AddJobTask(&spec, job, index, address, task_field));
      }
    } else {
      return InvalidArgument(kSource, ": ", field,
                             " must be a list of \"host:port\" strings or an object of "
                             "task index -> address, got ",
                             tasks.TypeName());
    }
    if (!spec.HasJob(job)) return InvalidArgument(kSource, ": ", field, " has no tasks");
  }
  return spec;
}

}  // namespace

absl::StatusOr<ClusterInfo> ResolveTfConfig(absl::string_view tf_config,
                                            const TfConfigOptions& options) {
  LocalDevices devices;
  devices.num_cpus = options.num_cpus;
  devices.num_gpus = options.num_gpus;
  for (int i = 0; i < options.num_gpus; ++i) devices.gpu_ids.push_back(i);
  if (options.num_gpus < 0) {
    return InvalidArgument(kSource, ": num_gpus must be >= 0, got ", options.num_gpus);
  }

  JsonValue root = JsonValue::Object({});
  if (!absl::StripAsciiWhitespace(tf_config).empty()) {
    absl::StatusOr<JsonValue> parsed = io::ParseJson(tf_config);
    if (!parsed.ok()) return InvalidArgument(kSource, ": ", parsed.status().message());
    root = *std::move(parsed);
  }
  if (!root.is_object()) {
    return InvalidArgument(kSource, ": expected a JSON object, got ", root.TypeName());
  }

  ClusterSpec spec;
  const JsonValue* cluster = root.Find("cluster");
  if (cluster != nullptr && !cluster->is_null()) {
    TFD_ASSIGN_OR_RETURN(spec, ParseCluster(*cluster));
  }

  std::optional<TaskType> type = options.task_type;
  std::optional<int> index = options.task_index;
  const JsonValue* task = root.Find("task");
  if (task != nullptr && !task->is_null()) {
    if (!task->is_object()) {
      return InvalidArgument(kSource, ": task must be an object with \"type\" and \"index\", got ",
                             task->TypeName());
    }
    const JsonValue* type_value = task->Find("type");
    if (!type && type_value != nullptr) {
      if (!type_value->is_string()) {
        return InvalidArgument(kSource, ": task.type must be a string, got ",
                               type_value->TypeName());
      }
      absl::StatusOr<TaskType> parsed = ParseTaskType(type_value->text());
      if (!parsed.ok()) return InvalidArgument(kSource, ": task.type: ", parsed.status().message());
      type = *parsed;
    }
    const JsonValue* index_value = task->Find("index");
    if (!index && index_value != nullptr) {
      TFD_ASSIGN_OR_RETURN(index, IndexValue(*index_value, "task.index"));
    }
  }

  TFD_ASSIGN_OR_RETURN(std::optional<std::string> rpc_layer, OptionalString(root, "rpc_layer"));
  TFD_ASSIGN_OR_RETURN(std::optional<std::string> environment, OptionalString(root, "environment"));
  if (options.rpc_layer) rpc_layer = options.rpc_layer;
  if (options.environment) environment = options.environment;

  const bool has_task = type.has_value() || index.has_value();
  if (spec.empty()) {
    if (has_task && type != TaskType::kEvaluator) {
      return InvalidArgument(kSource,
                             ": task is set but cluster is missing or empty; a "
                             "multi-worker TF_CONFIG needs both (leave both out to run locally)");
    }
    if (!has_task) {
      ClusterInfo local = LocalClusterInfo(std::move(devices));
      local.rpc_layer = rpc_layer.value_or("");
      local.environment = environment.value_or("");
      return local;
    }
  }
  if (!type) {
    return InvalidArgument(kSource,
                           ": cluster is set but task.type is missing; each process "
                           "needs its own {\"type\": ..., \"index\": ...}");
  }
  if (!index)
    return InvalidArgument(kSource, ": task.index is missing for task.type \"", TaskTypeName(*type),
                           "\"");
  return ResolveCluster(std::move(spec), *type, *index, rpc_layer.value_or(""),
                        environment.value_or(""), std::move(devices));
}

absl::StatusOr<ClusterInfo> TfConfigClusterResolver::Resolve() const {
  std::optional<std::string> text = env_("TF_CONFIG");
  return ResolveTfConfig(text.value_or(""), options_);
}

}  // namespace distribute
}  // namespace tfd
