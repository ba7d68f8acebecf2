// Connecting the processes of a multi-worker job into one Gloo context:
// each rank opens a TCP device on its own host, publishes its address
// through the coordination service (CoordinationStore) and connects to
// every other rank (a full mesh).
//
//   TFD_ASSIGN_OR_RETURN(std::shared_ptr<gloo::Context> context,
//       ConnectGlooContext(*client, {.prefix = "gloo/replicas", .rank = info.rank,
//                                    .size = info.num_workers, .hostname = "10.0.0.2"}));
#ifndef TFD_CORE_DISTRIBUTE_COLLECTIVES_GLOO_GLOO_CONTEXT_H_
#define TFD_CORE_DISTRIBUTE_COLLECTIVES_GLOO_GLOO_CONTEXT_H_

#include <memory>
#include <string>

#include "absl/status/statusor.h"
#include "absl/time/time.h"
#include "core/distribute/coordination/coordination_client.h"
#include "gloo/context.h"

namespace tfd {
namespace distribute {

struct GlooContextOptions {
  // Keys of this context in the coordination store; every rank of the
  // context passes the same prefix, and each context of a job its own.
  std::string prefix = "gloo/";
  int rank = 0;
  int size = 1;
  // The host (name or address) this rank listens on; peers must reach it.
  std::string hostname = "127.0.0.1";
  // Bounds the rendezvous and, afterwards, every collective of the context.
  absl::Duration timeout = absl::Seconds(60);
};

// A connected context. INVALID_ARGUMENT for a bad rank/size; the
// rendezvous error (DEADLINE_EXCEEDED naming the key of the rank that never
// published its address); UNAVAILABLE when a peer cannot be reached.
absl::StatusOr<std::shared_ptr<gloo::Context>> ConnectGlooContext(
    coordination::CoordinationClient& client, const GlooContextOptions& options);

}  // namespace distribute
}  // namespace tfd

#endif  // TFD_CORE_DISTRIBUTE_COLLECTIVES_GLOO_GLOO_CONTEXT_H_
