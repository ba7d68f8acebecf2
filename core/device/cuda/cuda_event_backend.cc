#include "core/device/cuda/cuda_event_backend.h"

#include <cuda_runtime_api.h>

#include "core/device/cuda/cuda_status.h"
#include "core/framework/status.h"

namespace tfd {
namespace {

// Makes `device` current for the scope and restores the caller's device.
class DeviceGuard {
 public:
  explicit DeviceGuard(int device) {
    status_ = TFD_CUDA_STATUS(cudaGetDevice(&previous_));
    if (status_.ok() && previous_ != device) status_ = TFD_CUDA_STATUS(cudaSetDevice(device));
  }
  ~DeviceGuard() {
    if (status_.ok()) cudaSetDevice(previous_);
  }
  const absl::Status& status() const { return status_; }

 private:
  int previous_ = 0;
  absl::Status status_;
};

cudaEvent_t AsEvent(EventHandle e) { return static_cast<cudaEvent_t>(e); }

}  // namespace

CudaEventBackend* CudaEventBackend::Get() {
  static CudaEventBackend* const backend = new CudaEventBackend();
  return backend;
}

absl::StatusOr<EventHandle> CudaEventBackend::Create(int device) {
  DeviceGuard guard(device);
  TFD_RETURN_IF_ERROR(guard.status());
  cudaEvent_t event = nullptr;
  TFD_RETURN_IF_ERROR(TFD_CUDA_STATUS(cudaEventCreateWithFlags(&event, cudaEventDisableTiming)));
  return static_cast<EventHandle>(event);
}

absl::Status CudaEventBackend::Record(EventHandle event, StreamRef stream) {
  DeviceGuard guard(stream.device);
  TFD_RETURN_IF_ERROR(guard.status());
  cudaStream_t s = static_cast<cudaStream_t>(const_cast<void*>(stream.stream));
  return TFD_CUDA_STATUS(cudaEventRecord(AsEvent(event), s));
}

absl::StatusOr<bool> CudaEventBackend::Query(EventHandle event) {
  const cudaError_t e = cudaEventQuery(AsEvent(event));
  if (e == cudaErrorNotReady) {
    // An answer, not an error; cleared from the thread's last error so that
    // the next kernel launch check does not report it (CudaEvent::IsDone).
    (void)cudaGetLastError();
    return false;
  }
  TFD_RETURN_IF_ERROR(TFD_CUDA_STATUS(e));
  return true;
}

absl::Status CudaEventBackend::Synchronize(EventHandle event) {
  return TFD_CUDA_STATUS(cudaEventSynchronize(AsEvent(event)));
}

void CudaEventBackend::Destroy(EventHandle event) {
  // CUDA defers the release until the event's work is done; a failure
  // means the context is gone, which frees the event anyway.
  cudaEventDestroy(AsEvent(event));
}

}  // namespace tfd
