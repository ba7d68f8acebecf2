#include "core/distribute/collectives/gloo/gloo_context.h"

#include <chrono>

#include "absl/strings/str_cat.h"
#include "core/distribute/collectives/gloo/coordination_store.h"
#include "core/distribute/collectives/gloo/gloo_status.h"
#include "core/framework/status.h"
#include "gloo/rendezvous/context.h"
#include "gloo/transport/tcp/device.h"

namespace tfd {
namespace distribute {

absl::StatusOr<std::shared_ptr<gloo::Context>> ConnectGlooContext(
    coordination::CoordinationClient& client, const GlooContextOptions& options) {
  if (options.size < 1 || options.rank < 0 || options.rank >= options.size) {
    return InvalidArgument("Gloo: rank ", options.rank, " is not in a group of ", options.size);
  }
  if (options.timeout <= absl::ZeroDuration()) {
    return InvalidArgument("Gloo: the timeout must be positive, got ",
                           absl::FormatDuration(options.timeout));
  }
  std::shared_ptr<gloo::transport::Device> device;
  gloo::transport::tcp::attr attr;
  attr.hostname = options.hostname;
  TFD_RETURN_IF_ERROR(TFD_GLOO_CALL(device = gloo::transport::tcp::CreateDevice(attr)));

  const auto timeout = std::chrono::milliseconds(absl::ToInt64Milliseconds(options.timeout));
  auto context = std::make_shared<gloo::rendezvous::Context>(options.rank, options.size);
  context->setTimeout(timeout);
  CoordinationStore store(&client, options.prefix, options.timeout);
  absl::Status status = TFD_GLOO_CALL(context->connectFullMesh(store, device));
  if (!status.ok()) {
    // The store's error says which key (rank) was missing and why.
    absl::Status cause = store.error().ok() ? status : store.error();
    return absl::Status(cause.code(),
                        absl::StrCat("Gloo rendezvous of rank ", options.rank, " of ", options.size,
                                     " (", options.prefix, "): ", cause.message()));
  }
  return std::shared_ptr<gloo::Context>(std::move(context));
}

}  // namespace distribute
}  // namespace tfd
