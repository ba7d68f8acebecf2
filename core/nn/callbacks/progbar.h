// Progbar: Keras's progress bar (tf_keras.utils.Progbar), text for text.
//
// Update(current, values, finalize) draws the bar for `current` steps of
// `target`:
//   verbose 1:  " 42/188 [=====>........................] - ETA: 3s - loss: 0.2345"
//               while running, and once finalized
//               "188/188 [==============================] - 2s 9ms/step - loss: 0.2345"
//   verbose 2:  only when finalized, "188/188 - 2s - loss: 0.2345 - 2s/epoch - 9ms/step"
// Values print with 4 decimals ("%.4f"), or as "%.4e" when their magnitude
// is at most 1e-3; times are whole seconds, milliseconds or microseconds
// per step as Keras rounds them. Values named in stateful_metrics print as
// given; others are averaged over the steps seen, weighted by the steps
// each update covers.
//
// On a terminal (dynamic display) each update redraws the line with
// backspaces and a carriage return, at most every `interval` seconds.
// Elsewhere (a file, a pipe, a log collector) verbose 1 writes only the
// finalized line, so logs hold one line per epoch instead of a line per
// update.
//
// The clock and the output are injectable, for exact tests. Not
// thread-safe: one loop drives one progress bar.
#ifndef TFD_CORE_NN_CALLBACKS_PROGBAR_H_
#define TFD_CORE_NN_CALLBACKS_PROGBAR_H_

#include <cstdint>
#include <functional>
#include <map>
#include <optional>
#include <set>
#include <string>
#include <utility>
#include <vector>

#include "absl/strings/string_view.h"

namespace tfd {
namespace nn {

// Where a progress bar writes and what time it reads.
struct ProgbarIo {
  // Seconds from any fixed origin; default: a monotonic clock.
  std::function<double()> clock;
  // Receives each message as is (no newline added); default: stdout,
  // flushed.
  std::function<void(absl::string_view)> write;
  // Redraw in place (a terminal); default: whether stdout is a terminal.
  std::optional<bool> dynamic_display;
};

// `io` with every unset member given its default.
ProgbarIo WithDefaults(ProgbarIo io);

class Progbar {
 public:
  // target: the number of steps, nullopt when unknown. verbose: 0 (silent),
  // 1 or 2 as above.
  Progbar(std::optional<int64_t> target, int verbose, std::set<std::string> stateful_metrics,
          ProgbarIo io = ProgbarIo(), std::string unit_name = "step", int width = 30,
          double interval = 0.05);

  // Records `values` (name, value of this update) at step `current` and
  // draws. finalize: nullopt means current >= target.
  void Update(int64_t current, const std::vector<std::pair<std::string, double>>& values,
              std::optional<bool> finalize = std::nullopt);

  std::optional<int64_t> target() const { return target_; }
  void set_target(std::optional<int64_t> target) { target_ = target; }
  void AddStatefulMetrics(const std::set<std::string>& names);

 private:
  // Seconds per step, ignoring the first step once there are more.
  double EstimateStepDuration(int64_t current, double now);
  std::string BarText(int64_t current) const;
  // " - name: value" for every value seen, in first-seen order.
  std::string ValuesText(bool signed_threshold) const;

  std::optional<int64_t> target_;
  const int width_;
  const int verbose_;
  const double interval_;
  const std::string unit_name_;
  std::set<std::string> stateful_metrics_;
  ProgbarIo io_;
  bool dynamic_display_;

  size_t total_width_ = 0;
  int64_t seen_so_far_ = 0;
  // name -> (weighted sum, weight); stateful values are stored as (v, 1).
  std::map<std::string, std::pair<double, double>> values_;
  std::vector<std::string> values_order_;
  double start_;
  double last_update_ = 0;
  double time_at_epoch_start_;
  std::optional<double> time_at_epoch_end_;
  std::optional<double> time_after_first_step_;
};

// Keras's duration text: " 2s/step", " 9ms/step", " 120us/step" (with the
// leading space).
std::string FormatStepTime(double seconds, absl::string_view unit_name);

}  // namespace nn
}  // namespace tfd

#endif  // TFD_CORE_NN_CALLBACKS_PROGBAR_H_
