#include "core/nn/callbacks/progbar.h"

#include <unistd.h>

#include <chrono>
#include <cmath>
#include <cstdio>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"

namespace tfd {
namespace nn {
namespace {

double SteadySeconds() {
  return std::chrono::duration<double>(std::chrono::steady_clock::now().time_since_epoch())
      .count();
}

void WriteStdout(absl::string_view text) {
  std::fwrite(text.data(), 1, text.size(), stdout);
  std::fflush(stdout);
}

// Python's f"{v:.4f}" / f"{v:.4e}" (C prints NaN as "-nan" for some NaNs).
std::string FormatValue(double v, bool fixed) {
  if (std::isnan(v)) return "nan";
  return fixed ? absl::StrFormat("%.4f", v) : absl::StrFormat("%.4e", v);
}

// Python's int(log10(target)) + 1: the digits of the step count.
int NumDigits(int64_t target) { return target > 0 ? static_cast<int>(std::log10(target)) + 1 : 1; }

}  // namespace

ProgbarIo WithDefaults(ProgbarIo io) {
  if (!io.clock) io.clock = SteadySeconds;
  if (!io.write) io.write = WriteStdout;
  if (!io.dynamic_display) io.dynamic_display = isatty(STDOUT_FILENO) != 0;
  return io;
}

std::string FormatStepTime(double seconds, absl::string_view unit_name) {
  if (seconds >= 1 || seconds == 0) return absl::StrFormat(" %.0fs/%s", seconds, unit_name);
  if (seconds >= 1e-3) return absl::StrFormat(" %.0fms/%s", seconds * 1000.0, unit_name);
  return absl::StrFormat(" %.0fus/%s", seconds * 1000000.0, unit_name);
}

Progbar::Progbar(std::optional<int64_t> target, int verbose,
                 std::set<std::string> stateful_metrics, ProgbarIo io, std::string unit_name,
                 int width, double interval)
    : target_(target),
      width_(width),
      verbose_(verbose),
      interval_(interval),
      unit_name_(std::move(unit_name)),
      stateful_metrics_(std::move(stateful_metrics)),
      io_(WithDefaults(std::move(io))) {
  dynamic_display_ = *io_.dynamic_display;
  start_ = io_.clock();
  time_at_epoch_start_ = start_;
}

void Progbar::AddStatefulMetrics(const std::set<std::string>& names) {
  stateful_metrics_.insert(names.begin(), names.end());
}

double Progbar::EstimateStepDuration(int64_t current, double now) {
  if (current == 0) return 0;
  double per_unit;
  if (time_after_first_step_ && current > 1) {
    per_unit = (now - *time_after_first_step_) / static_cast<double>(current - 1);
  } else {
    per_unit = (now - start_) / static_cast<double>(current);
  }
  if (current == 1) time_after_first_step_ = now;
  return per_unit;
}

std::string Progbar::BarText(int64_t current) const {
  if (!target_) return absl::StrFormat("%7d/Unknown", current);
  const int64_t target = *target_;
  std::string bar = absl::StrFormat("%*d/%d [", NumDigits(target), current, target);
  const double progress = target > 0 ? static_cast<double>(current) / target : 1.0;
  const int prog_width = static_cast<int>(width_ * progress);
  if (prog_width > 0) {
    bar.append(prog_width - 1, '=');
    bar += current < target ? '>' : '=';
  }
  if (width_ > prog_width) bar.append(width_ - prog_width, '.');
  bar += ']';
  return bar;
}

std::string Progbar::ValuesText(bool signed_threshold) const {
  std::string info;
  for (const std::string& k : values_order_) {
    const auto& [sum, count] = values_.at(k);
    const double avg = sum / std::max(1.0, count);
    // Keras's verbose-1 text compares |avg|, its verbose-2 text avg itself.
    const bool fixed = signed_threshold ? avg > 1e-3 : std::abs(avg) > 1e-3;
    absl::StrAppend(&info, " - ", k, ": ", FormatValue(avg, fixed));
  }
  return info;
}

void Progbar::Update(int64_t current, const std::vector<std::pair<std::string, double>>& values,
                     std::optional<bool> finalize_arg) {
  const bool finalize = finalize_arg.value_or(target_.has_value() && current >= *target_);
  for (const auto& [k, v] : values) {
    if (values_.count(k) == 0) values_order_.push_back(k);
    if (stateful_metrics_.count(k) > 0) {
      values_[k] = {v, 1.0};
    } else {
      const double base = static_cast<double>(std::max<int64_t>(current - seen_so_far_, 1));
      auto it = values_.find(k);
      if (it == values_.end()) {
        values_[k] = {v * base, base};
      } else {
        it->second.first += v * base;
        it->second.second += base;
      }
    }
  }
  seen_so_far_ = current;

  const double now = io_.clock();
  std::string info = absl::StrFormat(" - %.0fs", now - start_);
  if (target_ && current == *target_) time_at_epoch_end_ = now;

  if (verbose_ == 1) {
    if (now - last_update_ < interval_ && !finalize) return;
    if (!dynamic_display_ && !finalize) {
      // Off a terminal only the finished line is written; the step-time
      // estimate still needs to see every step.
      EstimateStepDuration(current, now);
      last_update_ = now;
      return;
    }
    std::string message;
    const size_t prev_total_width = dynamic_display_ ? total_width_ : 0;
    if (dynamic_display_) {
      message.append(prev_total_width, '\b');
      message += '\r';
    }
    const std::string bar = BarText(current);
    total_width_ = bar.size();
    message += bar;

    const double time_per_unit = EstimateStepDuration(current, now);
    if (!target_ || finalize) {
      info += FormatStepTime(time_per_unit, unit_name_);
    } else {
      const double eta = time_per_unit * static_cast<double>(*target_ - current);
      std::string eta_text;
      if (eta > 3600) {
        eta_text = absl::StrFormat("%d:%02d:%02d", static_cast<int64_t>(eta / 3600),
                                   static_cast<int64_t>(std::fmod(eta, 3600) / 60),
                                   static_cast<int64_t>(std::fmod(eta, 60)));
      } else if (eta > 60) {
        eta_text = absl::StrFormat("%d:%02d", static_cast<int64_t>(eta / 60),
                                   static_cast<int64_t>(std::fmod(eta, 60)));
      } else {
        eta_text = absl::StrFormat("%ds", static_cast<int64_t>(eta));
      }
      info = " - ETA: " + eta_text;
    }
    info += ValuesText(/*signed_threshold=*/false);
    total_width_ += info.size();
    if (prev_total_width > total_width_) info.append(prev_total_width - total_width_, ' ');
    if (finalize) info += '\n';
    message += info;
    io_.write(message);
  } else if (verbose_ == 2) {
    if (finalize) {
      const int64_t target = target_.value_or(current);
      std::string line = absl::StrFormat("%*d/%d", NumDigits(target), current, target) + info;
      line += ValuesText(/*signed_threshold=*/true);
      if (time_at_epoch_end_) {
        const double time_per_epoch = *time_at_epoch_end_ - time_at_epoch_start_;
        const double per_step = target > 0 ? time_per_epoch / target : 0;
        time_at_epoch_start_ = now;
        time_at_epoch_end_.reset();
        line += " -" + FormatStepTime(time_per_epoch, "epoch");
        line += " -" + FormatStepTime(per_step, unit_name_);
        line += '\n';
      }
      io_.write(line);
    }
  }
  last_update_ = now;
}

}  // namespace nn
}  // namespace tfd
