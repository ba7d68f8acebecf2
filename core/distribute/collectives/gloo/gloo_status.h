// Gloo reports failures by throwing (gloo::IoException for a peer that
// closed its socket or did not answer in time, gloo::EnforceNotMet for a
// broken precondition). tfd never lets an exception out of a collective:
// every Gloo call goes through TFD_GLOO_CALL, which turns what Gloo threw
// into a Status naming Gloo, the call, file:line and Gloo's message.
//
//   TFD_RETURN_IF_ERROR(TFD_GLOO_CALL(gloo::allreduce(options)));
#ifndef TFD_CORE_DISTRIBUTE_COLLECTIVES_GLOO_GLOO_STATUS_H_
#define TFD_CORE_DISTRIBUTE_COLLECTIVES_GLOO_GLOO_STATUS_H_

#include <exception>
#include <functional>
#include <string>

#include "absl/status/status.h"

namespace tfd {
namespace distribute {
namespace internal {

// Runs `call`; what it throws becomes DEADLINE_EXCEEDED (Gloo timed out),
// UNAVAILABLE (a peer's connection failed) or INTERNAL (anything else).
absl::Status GlooCall(const char* what, const char* file, int line,
                      const std::function<void()>& call);

}  // namespace internal
}  // namespace distribute
}  // namespace tfd

#define TFD_GLOO_CALL(expr) \
  ::tfd::distribute::internal::GlooCall(#expr, __FILE__, __LINE__, [&]() { expr; })

#endif  // TFD_CORE_DISTRIBUTE_COLLECTIVES_GLOO_GLOO_STATUS_H_
