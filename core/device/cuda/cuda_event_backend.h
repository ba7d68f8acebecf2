// CudaEventBackend: the EventBackend of EventGate (event_gate.h) over CUDA
// events: cudaEventCreateWithFlags (no timing), cudaEventRecord,
// cudaEventQuery, cudaEventSynchronize, cudaEventDestroy. A StreamKey is a
// cudaStream_t. Stateless; calls that need a current device set it and
// restore the caller's, so a tensor freed on any thread does not move that
// thread to another GPU.
//
// Thread safety: every method may be called from any thread.
#ifndef TFD_CORE_DEVICE_CUDA_CUDA_EVENT_BACKEND_H_
#define TFD_CORE_DEVICE_CUDA_CUDA_EVENT_BACKEND_H_

#include "core/device/cuda/event_gate.h"

namespace tfd {

class CudaEventBackend final : public EventBackend {
 public:
  absl::StatusOr<EventHandle> Create(int device) override;
  absl::Status Record(EventHandle event, StreamRef stream) override;
  absl::StatusOr<bool> Query(EventHandle event) override;
  absl::Status Synchronize(EventHandle event) override;
  void Destroy(EventHandle event) override;

  // One for the whole process (never destroyed).
  static CudaEventBackend* Get();
};

}  // namespace tfd

#endif  // TFD_CORE_DEVICE_CUDA_CUDA_EVENT_BACKEND_H_
