// HostPipelineScope: the input pipeline computes on the host, as tf.data
// does, even on a thread whose ops would otherwise run on a GPU (a
// DeviceScope, or the default device of TFD_DEFAULT_DEVICE). Dataset
// elements are therefore host tensors; the ops that consume them copy them
// to their device.
//
// Devices in host memory (the host, CPU logical devices) keep the
// pipeline's ops, so a CPU-only process computes exactly where it did
// before default devices existed.
//
// Lives on one thread's stack, like DeviceScope:
//
//   HostPipelineScope on_host;
//   TFD_ASSIGN_OR_RETURN(Element mapped, fn(element));
#ifndef TFD_CORE_DATA_INTERNAL_HOST_PIPELINE_SCOPE_H_
#define TFD_CORE_DATA_INTERNAL_HOST_PIPELINE_SCOPE_H_

#include <optional>

#include "core/framework/device.h"

namespace tfd {
namespace data {
namespace internal {

class HostPipelineScope {
 public:
  HostPipelineScope();
  HostPipelineScope(const HostPipelineScope&) = delete;
  HostPipelineScope& operator=(const HostPipelineScope&) = delete;

 private:
  std::optional<DeviceScope> scope_;
};

}  // namespace internal
}  // namespace data
}  // namespace tfd

#endif  // TFD_CORE_DATA_INTERNAL_HOST_PIPELINE_SCOPE_H_
