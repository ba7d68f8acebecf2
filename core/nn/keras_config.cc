#include "core/nn/keras_config.h"

#include <cmath>
#include <utility>

#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "core/framework/status.h"

namespace tfd {
namespace nn {

using io::JsonValue;

KerasConfig::KerasConfig(std::string class_name, const JsonValue* config)
    : class_name_(std::move(class_name)), config_(config), name_(class_name_) {}

absl::Status KerasConfig::Valid() const {
  if (config_ == nullptr || !config_->is_object()) {
    return absl::InvalidArgumentError(
        absl::StrCat(class_name_, ": \"config\" must be a JSON object, got ",
                     config_ == nullptr ? "nothing" : config_->TypeName()));
  }
  return absl::OkStatus();
}

absl::Status KerasConfig::Error(absl::StatusCode code, absl::string_view message) const {
  return absl::Status(code, absl::StrCat(class_name_, " '", name_, "': ", message));
}

const JsonValue* KerasConfig::Take(absl::string_view key) {
  used_.insert(std::string(key));
  const JsonValue* v = config_ == nullptr ? nullptr : config_->Find(key);
  return v == nullptr || v->is_null() ? nullptr : v;
}

absl::StatusOr<int64_t> KerasConfig::ToInt(const JsonValue& value, absl::string_view key) const {
  const double d = value.number_value();
  if (!value.is_number() || d != std::floor(d) || std::fabs(d) > 9.007199254740992e15) {
    return Error(absl::StatusCode::kInvalidArgument,
                 absl::StrCat("\"", key, "\" must be an integer, got ",
                              value.is_number() ? value.text() : value.TypeName()));
  }
  return static_cast<int64_t>(d);
}

absl::StatusOr<LayerOptions> KerasConfig::Common() {
  TFD_RETURN_IF_ERROR(Valid());
  LayerOptions options;
  TFD_ASSIGN_OR_RETURN(options.name, String("name", ""));
  if (!options.name.empty()) name_ = options.name;
  TFD_ASSIGN_OR_RETURN(options.trainable, Bool("trainable", true));
  if (const JsonValue* dtype = Take("dtype")) {
    if (dtype->is_object()) {
      // A mixed-precision policy: {"class_name": "Policy", "config":
      // {"name": "mixed_float16"}} (tf-keras), or Keras 3's "DTypePolicy"
      // (earlier "FloatDTypePolicy") with the same config.
      const JsonValue* policy_class = dtype->Find("class_name");
      if (policy_class != nullptr && policy_class->is_string() &&
          policy_class->text() != "Policy" && policy_class->text() != "DTypePolicy" &&
          policy_class->text() != "FloatDTypePolicy") {
        return Error(absl::StatusCode::kUnimplemented,
                     absl::StrCat("\"dtype\" policy class ", policy_class->text(),
                                  " is not supported (Policy and DTypePolicy are)"));
      }
      const JsonValue* policy = dtype->Find("config");
      const JsonValue* policy_name = policy == nullptr ? nullptr : policy->Find("name");
      if (policy_name == nullptr || !policy_name->is_string()) {
        return Error(absl::StatusCode::kInvalidArgument,
                     "\"dtype\" policy needs a \"config\" with a \"name\"");
      }
      absl::StatusOr<DTypePolicy> parsed = DTypePolicy::FromName(policy_name->text());
      if (!parsed.ok()) return Error(parsed.status().code(), parsed.status().message());
      options.policy = *parsed;
    } else if (dtype->is_string() && absl::StartsWith(dtype->text(), "mixed_")) {
      // Keras layers take a policy name where they take a dtype:
      // Dense(10, dtype="mixed_float16"). Names that are no policy get
      // Keras's message, which names the valid ones.
      absl::StatusOr<DTypePolicy> parsed = DTypePolicy::FromName(dtype->text());
      if (!parsed.ok()) return Error(absl::StatusCode::kInvalidArgument, parsed.status().message());
      options.policy = *parsed;
    } else if (dtype->is_string()) {
      absl::StatusOr<DataType> parsed = KerasDtype(dtype->text());
      if (!parsed.ok()) {
        return Error(absl::StatusCode::kUnimplemented,
                     absl::StrCat(parsed.status().message(),
                                  "; a layer's dtype is a dtype name such as 'float32' or a "
                                  "policy name, 'mixed_float16' or 'mixed_bfloat16'"));
      }
      options.dtype = *parsed;
    } else {
      return Error(absl::StatusCode::kInvalidArgument,
                   absl::StrCat("\"dtype\" must be a string or a policy, got ", dtype->TypeName()));
    }
  }
  TFD_ASSIGN_OR_RETURN(std::optional<Shape> batch_input_shape,
                       OptionalShape("batch_input_shape"));
  if (batch_input_shape.has_value()) {
    if (batch_input_shape->empty()) {
      return Error(absl::StatusCode::kInvalidArgument,
                   "\"batch_input_shape\" needs a batch dimension");
    }
    options.input_shape = Shape(batch_input_shape->begin() + 1, batch_input_shape->end());
  }
  return options;
}

absl::StatusOr<int64_t> KerasConfig::Int(absl::string_view key) {
  const JsonValue* v = Take(key);
  if (v == nullptr) {
    return Error(absl::StatusCode::kInvalidArgument, absl::StrCat("\"", key, "\" is required"));
  }
  return ToInt(*v, key);
}

absl::StatusOr<int64_t> KerasConfig::Int(absl::string_view key, int64_t default_value) {
  const JsonValue* v = Take(key);
  return v == nullptr ? absl::StatusOr<int64_t>(default_value) : ToInt(*v, key);
}

absl::StatusOr<std::optional<int64_t>> KerasConfig::OptionalInt(absl::string_view key) {
  const JsonValue* v = Take(key);
  if (v == nullptr) return std::optional<int64_t>();
  TFD_ASSIGN_OR_RETURN(int64_t value, ToInt(*v, key));
  return std::optional<int64_t>(value);
}

absl::StatusOr<double> KerasConfig::Double(absl::string_view key, double default_value) {
  const JsonValue* v = Take(key);
  if (v == nullptr) return default_value;
  if (!v->is_number()) {
    return Error(absl::StatusCode::kInvalidArgument,
                 absl::StrCat("\"", key, "\" must be a number, got ", v->TypeName()));
  }
  return v->number_value();
}

absl::StatusOr<bool> KerasConfig::Bool(absl::string_view key, bool default_value) {
  const JsonValue* v = Take(key);
  if (v == nullptr) return default_value;
  if (v->type() != JsonValue::Type::kBool) {
    return Error(absl::StatusCode::kInvalidArgument,
                 absl::StrCat("\"", key, "\" must be true or false, got ", v->TypeName()));
  }
  return v->bool_value();
}

absl::StatusOr<std::string> KerasConfig::String(absl::string_view key,
                                                absl::string_view default_value) {
  const JsonValue* v = Take(key);
  if (v == nullptr) return std::string(default_value);
  if (!v->is_string()) {
    return Error(absl::StatusCode::kInvalidArgument,
                 absl::StrCat("\"", key, "\" must be a string, got ", v->TypeName()));
  }
  return v->text();
}

absl::StatusOr<std::vector<int64_t>> KerasConfig::IntList(absl::string_view key,
                                                          std::optional<int64_t> default_value) {
  const JsonValue* v = Take(key);
  std::vector<int64_t> values;
  if (v == nullptr) {
    if (!default_value.has_value()) {
      return Error(absl::StatusCode::kInvalidArgument, absl::StrCat("\"", key, "\" is required"));
    }
    values.push_back(*default_value);
  } else if (v->is_array()) {
    for (const JsonValue& item : v->items()) {
      TFD_ASSIGN_OR_RETURN(int64_t value, ToInt(item, key));
      values.push_back(value);
    }
  } else {
    TFD_ASSIGN_OR_RETURN(int64_t value, ToInt(*v, key));
    values.push_back(value);
  }
  return values;
}

absl::StatusOr<std::vector<std::vector<int64_t>>> KerasConfig::NestedIntList(
    absl::string_view key, int64_t default_value) {
  const JsonValue* v = Take(key);
  if (v == nullptr) return std::vector<std::vector<int64_t>>{{default_value}, {default_value}};
  if (!v->is_array()) {
    TFD_ASSIGN_OR_RETURN(int64_t value, ToInt(*v, key));
    return std::vector<std::vector<int64_t>>{{value}, {value}};
  }
  std::vector<std::vector<int64_t>> lists;
  for (const JsonValue& item : v->items()) {
    std::vector<int64_t> list;
    if (item.is_array()) {
      for (const JsonValue& inner : item.items()) {
        TFD_ASSIGN_OR_RETURN(int64_t value, ToInt(inner, key));
        list.push_back(value);
      }
    } else {
      TFD_ASSIGN_OR_RETURN(int64_t value, ToInt(item, key));
      list.push_back(value);
    }
    lists.push_back(std::move(list));
  }
  return lists;
}

absl::StatusOr<std::optional<Shape>> KerasConfig::OptionalShape(absl::string_view key) {
  const JsonValue* v = Take(key);
  if (v == nullptr) return std::optional<Shape>();
  if (!v->is_array()) {
    return Error(absl::StatusCode::kInvalidArgument,
                 absl::StrCat("\"", key, "\" must be a list, got ", v->TypeName()));
  }
  Shape shape;
  for (const JsonValue& item : v->items()) {
    if (item.is_null()) {
      shape.push_back(kNone);
      continue;
    }
    TFD_ASSIGN_OR_RETURN(int64_t dim, ToInt(item, key));
    if (dim < 0) {
      return Error(absl::StatusCode::kInvalidArgument,
                   absl::StrCat("\"", key, "\" has a negative dimension ", dim));
    }
    shape.push_back(dim);
  }
  return std::optional<Shape>(std::move(shape));
}

absl::StatusOr<InitializerPtr> KerasConfig::Initializer(absl::string_view key,
                                                        InitializerPtr default_value) {
  const JsonValue* v = Take(key);
  if (v == nullptr) return default_value;
  if (v->is_string()) {
    absl::StatusOr<InitializerPtr> named = GetInitializer(v->text());
    if (!named.ok()) return Error(named.status().code(), named.status().message());
    return named;
  }
  const JsonValue* class_name = v->Find("class_name");
  if (!v->is_object() || class_name == nullptr || !class_name->is_string()) {
    return Error(absl::StatusCode::kInvalidArgument,
                 absl::StrCat("\"", key, "\" must be an initializer name or object"));
  }
  KerasConfig config(class_name->text(), v->Find("config"));
  config.name_ = absl::StrCat(name_, ".", key);
  const std::string& cls = class_name->text();
  absl::StatusOr<InitializerPtr> made;
  if (cls == "Zeros" || cls == "Ones") {
    made = cls == "Zeros" ? Zeros() : Ones();
  } else if (cls == "Constant") {
    TFD_ASSIGN_OR_RETURN(double value, config.Double("value", 0.0));
    made = Constant(value);
  } else if (cls == "RandomUniform") {
    TFD_ASSIGN_OR_RETURN(double minval, config.Double("minval", -0.05));
    TFD_ASSIGN_OR_RETURN(double maxval, config.Double("maxval", 0.05));
    TFD_ASSIGN_OR_RETURN(std::optional<int64_t> seed, config.OptionalInt("seed"));
    made = RandomUniform(minval, maxval, seed);
  } else if (cls == "RandomNormal" || cls == "TruncatedNormal") {
    TFD_ASSIGN_OR_RETURN(double mean, config.Double("mean", 0.0));
    TFD_ASSIGN_OR_RETURN(double stddev, config.Double("stddev", 0.05));
    TFD_ASSIGN_OR_RETURN(std::optional<int64_t> seed, config.OptionalInt("seed"));
    made = cls == "RandomNormal" ? RandomNormal(mean, stddev, seed)
                                 : TruncatedNormal(mean, stddev, seed);
  } else if (cls == "VarianceScaling") {
    TFD_ASSIGN_OR_RETURN(double scale, config.Double("scale", 1.0));
    TFD_ASSIGN_OR_RETURN(std::string mode, config.String("mode", "fan_in"));
    TFD_ASSIGN_OR_RETURN(std::string dist, config.String("distribution", "truncated_normal"));
    TFD_ASSIGN_OR_RETURN(std::optional<int64_t> seed, config.OptionalInt("seed"));
    made = VarianceScaling(scale, mode, dist, seed);
  } else {
    // The fixed variance-scaling family takes only a seed.
    using Factory = InitializerPtr (*)(std::optional<int64_t>);
    static const std::pair<const char*, Factory> kSeeded[] = {
        {"GlorotUniform", &GlorotUniform}, {"GlorotNormal", &GlorotNormal},
        {"HeNormal", &HeNormal},           {"HeUniform", &HeUniform},
        {"LecunNormal", &LecunNormal},     {"LecunUniform", &LecunUniform}};
    for (const auto& [seeded_name, factory] : kSeeded) {
      if (cls != seeded_name) continue;
      TFD_ASSIGN_OR_RETURN(std::optional<int64_t> seed, config.OptionalInt("seed"));
      made = factory(seed);
    }
    if (!made.ok() || *made == nullptr) {
      return Error(absl::StatusCode::kUnimplemented,
                   absl::StrCat("unknown initializer \"", cls, "\" for \"", key, "\""));
    }
  }
  if (!made.ok()) return Error(made.status().code(), made.status().message());
  TFD_RETURN_IF_ERROR(config.Finish());
  return made;
}

absl::Status KerasConfig::Expect(absl::string_view key, std::optional<std::string> expected) {
  const JsonValue* v = Take(key);
  if (v == nullptr) return absl::OkStatus();
  if (expected.has_value() && v->is_string() && v->text() == *expected) return absl::OkStatus();
  return Error(absl::StatusCode::kUnimplemented,
               absl::StrCat("\"", key, "\" = ", v->is_string() ? v->text() : v->TypeName(),
                            " is not supported by tfd (only ",
                            expected.has_value() ? *expected : std::string("null"), ")"));
}

absl::Status KerasConfig::ExpectFalse(absl::string_view key) {
  TFD_ASSIGN_OR_RETURN(bool value, Bool(key, false));
  if (!value) return absl::OkStatus();
  return Error(absl::StatusCode::kUnimplemented,
               absl::StrCat("\"", key, "\" = true is not supported by tfd"));
}

absl::Status KerasConfig::Finish() const {
  if (config_ == nullptr || !config_->is_object()) return absl::OkStatus();
  std::vector<std::string> unknown;
  for (const auto& [key, value] : config_->members()) {
    if (used_.find(key) == used_.end()) unknown.push_back(key);
  }
  if (unknown.empty()) return absl::OkStatus();
  return Error(absl::StatusCode::kUnimplemented,
               absl::StrCat("options not supported by tfd: ", absl::StrJoin(unknown, ", ")));
}

absl::StatusOr<DataType> KerasDtype(absl::string_view name) {
  DataType dtype = DT_INVALID;
  if (!DataTypeFromName(name, &dtype)) {
    return absl::UnimplementedError(absl::StrCat("dtype \"", name, "\" is not supported"));
  }
  return dtype;
}

}  // namespace nn
}  // namespace tfd
