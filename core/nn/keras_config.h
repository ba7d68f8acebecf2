// KerasConfig: typed, checked reading of one Keras `get_config()` object as
// model.to_json() writes it (a JSON object of argument names to values).
//
// Each getter consumes its key; Finish() then refuses every key nobody
// asked for, so an option tfd does not implement is an error naming it
// instead of being silently dropped. Missing keys take the default the
// caller passes (Keras's default for that argument). Every error names the
// layer ("Dense 'dense_1': ...") so a user can find it in a large model.
//
// Not thread-safe; one reader per config object, used once.
//
//   KerasConfig config("Dense", layer_json.Find("config"));
//   TFD_ASSIGN_OR_RETURN(int64_t units, config.Int("units"));
//   TFD_RETURN_IF_ERROR(config.Finish());
#ifndef TFD_CORE_NN_KERAS_CONFIG_H_
#define TFD_CORE_NN_KERAS_CONFIG_H_

#include <cstdint>
#include <optional>
#include <set>
#include <string>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"
#include "core/framework/types.h"
#include "core/io/json.h"
#include "core/nn/initializers.h"
#include "core/nn/layer.h"

namespace tfd {
namespace nn {

class KerasConfig {
 public:
  // `config` may be null or not an object: Valid() then reports it.
  KerasConfig(std::string class_name, const io::JsonValue* config);

  // INVALID_ARGUMENT when the config is not a JSON object.
  absl::Status Valid() const;
  // The layer's name once read by Common(); the class name before.
  const std::string& name() const { return name_; }

  // The arguments every layer takes: name, trainable, dtype (a dtype name,
  // a policy name such as "mixed_float16", or a policy object: tf-keras's
  // "Policy" or Keras 3's "DTypePolicy") and batch_input_shape
  // (becomes input_shape without its batch dimension).
  absl::StatusOr<LayerOptions> Common();

  absl::StatusOr<int64_t> Int(absl::string_view key);
  absl::StatusOr<int64_t> Int(absl::string_view key, int64_t default_value);
  absl::StatusOr<std::optional<int64_t>> OptionalInt(absl::string_view key);
  absl::StatusOr<double> Double(absl::string_view key, double default_value);
  absl::StatusOr<bool> Bool(absl::string_view key, bool default_value);
  absl::StatusOr<std::string> String(absl::string_view key, absl::string_view default_value);
  // An int or a list of ints (kernel_size=3 or [3, 3]); a list of one
  // int when `key` is missing and `default_value` is set.
  absl::StatusOr<std::vector<int64_t>> IntList(absl::string_view key,
                                               std::optional<int64_t> default_value);
  // An int or a list whose items are ints or lists of ints (ZeroPadding2D's
  // padding=1, [1, 2] or [[3, 3], [1, 0]]): an int v becomes {{v}, {v}},
  // each int item a one-element list. {{d}, {d}} when `key` is missing.
  absl::StatusOr<std::vector<std::vector<int64_t>>> NestedIntList(absl::string_view key,
                                                                  int64_t default_value);
  // A shape: a list of ints and nulls (null becomes kNone); nullopt when
  // missing or null.
  absl::StatusOr<std::optional<Shape>> OptionalShape(absl::string_view key);
  // A Keras initializer: {"class_name": ..., "config": {...}} or a name.
  absl::StatusOr<InitializerPtr> Initializer(absl::string_view key, InitializerPtr default_value);

  // The key must be missing, null or equal to `expected` (a string): for
  // options tfd supports only in their default form (data_format,
  // regularizers, constraints). UNIMPLEMENTED naming the value otherwise.
  absl::Status Expect(absl::string_view key, std::optional<std::string> expected);
  // The key must be missing, null or false.
  absl::Status ExpectFalse(absl::string_view key);

  // UNIMPLEMENTED naming every key no getter consumed.
  absl::Status Finish() const;

  // "<class> '<name>': <message>" as an error of `code`.
  absl::Status Error(absl::StatusCode code, absl::string_view message) const;

 private:
  // The value under `key` (marking it consumed), or null when missing or
  // JSON null.
  const io::JsonValue* Take(absl::string_view key);
  absl::StatusOr<int64_t> ToInt(const io::JsonValue& value, absl::string_view key) const;

  const std::string class_name_;
  const io::JsonValue* const config_;
  std::string name_;
  std::set<std::string, std::less<>> used_;
};

// The DataType for a Keras dtype name ("float32", "float64", "int32", ...).
absl::StatusOr<DataType> KerasDtype(absl::string_view name);

}  // namespace nn
}  // namespace tfd

#endif  // TFD_CORE_NN_KERAS_CONFIG_H_
