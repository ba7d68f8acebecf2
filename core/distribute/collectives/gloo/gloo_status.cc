#include "core/distribute/collectives/gloo/gloo_status.h"

#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "gloo/common/error.h"

namespace tfd {
namespace distribute {
namespace internal {

absl::Status GlooCall(const char* what, const char* file, int line,
                      const std::function<void()>& call) {
  auto message = [&](const char* error) {
    return absl::StrCat("Gloo: ", what, " at ", file, ":", line, ": ", error);
  };
  try {
    call();
    return absl::OkStatus();
  } catch (const gloo::IoException& e) {
    // Gloo's timeouts are IoExceptions whose message says so.
    if (absl::StrContains(e.what(), "Timed out") || absl::StrContains(e.what(), "timed out")) {
      return absl::DeadlineExceededError(message(e.what()));
    }
    return absl::UnavailableError(message(e.what()));
  } catch (const std::exception& e) {
    return absl::InternalError(message(e.what()));
  } catch (...) {
    return absl::InternalError(message("unknown exception"));
  }
}

}  // namespace internal
}  // namespace distribute
}  // namespace tfd
