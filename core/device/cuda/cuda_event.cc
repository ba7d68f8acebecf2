// CudaEvent: status-returning wrappers of the CUDA event calls.
#include "core/device/cuda/cuda_event.h"

#include <utility>

#include "core/device/cuda/cuda_status.h"
#include "core/framework/status.h"

namespace tfd {

absl::StatusOr<CudaEvent> CudaEvent::Create(int ordinal, bool timing) {
  TFD_RETURN_IF_ERROR(TFD_CUDA_STATUS(cudaSetDevice(ordinal)));
  cudaEvent_t event = nullptr;
  const unsigned flags = timing ? cudaEventDefault : cudaEventDisableTiming;
  TFD_RETURN_IF_ERROR(TFD_CUDA_STATUS(cudaEventCreateWithFlags(&event, flags)));
  return CudaEvent(ordinal, event);
}

CudaEvent::CudaEvent(CudaEvent&& other) noexcept
    : ordinal_(other.ordinal_), event_(std::exchange(other.event_, nullptr)) {}

CudaEvent& CudaEvent::operator=(CudaEvent&& other) noexcept {
  if (this != &other) {
    if (event_ != nullptr) cudaEventDestroy(event_);
    ordinal_ = other.ordinal_;
    event_ = std::exchange(other.event_, nullptr);
  }
  return *this;
}

CudaEvent::~CudaEvent() {
  // Nothing to report to from a destructor; a failure here means the
  // context is already gone, which frees the event anyway.
  if (event_ != nullptr) cudaEventDestroy(event_);
}

absl::Status CudaEvent::Record(cudaStream_t stream) {
  TFD_RETURN_IF_ERROR(TFD_CUDA_STATUS(cudaSetDevice(ordinal_)));
  return TFD_CUDA_STATUS(cudaEventRecord(event_, stream));
}

absl::Status CudaEvent::MakeStreamWait(cudaStream_t stream) const {
  return TFD_CUDA_STATUS(cudaStreamWaitEvent(stream, event_, 0));
}

absl::Status CudaEvent::Synchronize() const {
  return TFD_CUDA_STATUS(cudaEventSynchronize(event_));
}

absl::StatusOr<bool> CudaEvent::IsDone() const {
  const cudaError_t e = cudaEventQuery(event_);
  if (e == cudaErrorNotReady) {
    // "Not ready" is an answer, not an error; but the runtime also stored it
    // as the thread's last error, which the next kernel launch check would
    // report as its own failure.
    (void)cudaGetLastError();
    return false;
  }
  TFD_RETURN_IF_ERROR(TFD_CUDA_STATUS(e));
  return true;
}

absl::StatusOr<float> CudaEvent::ElapsedMs(const CudaEvent& start, const CudaEvent& stop) {
  TFD_RETURN_IF_ERROR(stop.Synchronize());
  float ms = 0;
  TFD_RETURN_IF_ERROR(TFD_CUDA_STATUS(cudaEventElapsedTime(&ms, start.event_, stop.event_)));
  return ms;
}

}  // namespace tfd
