#include "core/nn/zero_padding2d.h"

#include <algorithm>
#include <set>
#include <string>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "core/framework/execute.h"
#include "core/framework/status.h"
#include "core/nn/conv_utils.h"

namespace tfd {
namespace nn {
namespace {

// Python's repr of one entry as a user would have written it: an int for
// a single value, else a tuple.
std::string EntryString(const std::vector<int64_t>& entry) {
  return entry.size() == 1 ? std::to_string(entry[0]) : TupleString(entry);
}

// Keras's normalize_tuple(entry, 2, name, allow_zero=True): one value is
// repeated, two are (before, after), and none may be negative.
absl::StatusOr<std::array<int64_t, 2>> NormalizeEntry(const std::vector<int64_t>& entry,
                                                      const std::string& name) {
  const std::string message = absl::StrCat("The `", name, "` argument must be a tuple of 2 ",
                                           "integers. Received: ", EntryString(entry));
  if (entry.size() != 1 && entry.size() != 2) return absl::InvalidArgumentError(message);
  const std::array<int64_t, 2> pair = {entry.front(), entry.back()};
  std::set<int64_t> negative;  // Printed as Python prints the set.
  for (int64_t v : pair) {
    if (v < 0) negative.insert(v);
  }
  if (!negative.empty()) {
    return absl::InvalidArgumentError(
        absl::StrCat(message, " including {", absl::StrJoin(negative, ", "),
                     "} that does not satisfy the requirement `>= 0`."));
  }
  return pair;
}

}  // namespace

ZeroPadding2D::ZeroPadding2D(int64_t padding, const LayerOptions& options)
    : ZeroPadding2D(std::vector<std::vector<int64_t>>{{padding}, {padding}}, options) {}

ZeroPadding2D::ZeroPadding2D(const std::vector<std::vector<int64_t>>& padding,
                             const LayerOptions& options)
    : Layer("ZeroPadding2D", options) {
  arguments_status_ = [&]() -> absl::Status {
    if (padding.size() != 2) {
      std::vector<std::string> entries;
      for (const auto& entry : padding) entries.push_back(EntryString(entry));
      return absl::InvalidArgumentError(absl::StrCat(
          "`padding` should have two elements. Received: (", absl::StrJoin(entries, ", "), ")."));
    }
    TFD_ASSIGN_OR_RETURN(padding_[0], NormalizeEntry(padding[0], "1st entry of padding"));
    TFD_ASSIGN_OR_RETURN(padding_[1], NormalizeEntry(padding[1], "2nd entry of padding"));
    return absl::OkStatus();
  }();
  // Keras raises these in the constructor; a layer reports them when it is
  // built or called, prefixed with its name.
  if (!arguments_status_.ok()) arguments_status_ = Error(arguments_status_.message());
}

absl::StatusOr<Shape> ZeroPadding2D::ComputeOutputShapeImpl(
    const std::vector<Shape>& input_shapes) const {
  TFD_RETURN_IF_ERROR(arguments_status_);
  const Shape& in = input_shapes[0];
  TFD_RETURN_IF_ERROR(CheckRank(0, in, 4));
  Shape out = in;
  for (int i = 0; i < 2; ++i) {
    if (in[1 + i] != kNone) out[1 + i] = in[1 + i] + padding_[i][0] + padding_[i][1];
  }
  return out;
}

absl::StatusOr<Tensor> ZeroPadding2D::CallImpl(const std::vector<Tensor>& inputs, bool) {
  // paddings: [4, 2], (before, after) per NHWC axis.
  Tensor paddings(DT_INT32, TensorShape({4, 2}));
  int32_t* p = paddings.data<int32_t>();
  std::fill(p, p + 8, 0);
  for (int i = 0; i < 2; ++i) {
    p[2 * (1 + i)] = static_cast<int32_t>(padding_[i][0]);
    p[2 * (1 + i) + 1] = static_cast<int32_t>(padding_[i][1]);
  }
  return Execute1("Pad", {inputs[0], paddings});
}

}  // namespace nn
}  // namespace tfd
