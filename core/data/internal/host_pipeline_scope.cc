#include "core/data/internal/host_pipeline_scope.h"

#include "core/framework/placement.h"

namespace tfd {
namespace data {
namespace internal {

HostPipelineScope::HostPipelineScope() {
  absl::StatusOr<Device*> current = CurrentDevice();
  // A default device that does not resolve is reported by the ops that
  // use it; the pipeline itself needs no default device and runs on the
  // host.
  if (!current.ok() || !(*current)->host_memory()) scope_.emplace(HostDevice());
}

}  // namespace internal
}  // namespace data
}  // namespace tfd
