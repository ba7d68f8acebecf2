#include "core/device/cuda/cuda_peer_copy.h"

#include <cuda_runtime_api.h>

#include "core/device/cuda/cuda_event_backend.h"
#include "core/device/cuda/cuda_status.h"
#include "core/device/cuda/pinned_host_memory.h"
#include "core/framework/status.h"

namespace tfd {
namespace {

cudaStream_t AsStream(StreamRef s) { return static_cast<cudaStream_t>(const_cast<void*>(s.stream)); }

class CudaPeerCopyBackend final : public PeerCopyBackend {
 public:
  absl::StatusOr<bool> CanAccessPeer(int reader, int owner) override {
    int can = 0;
    TFD_RETURN_IF_ERROR(TFD_CUDA_STATUS(cudaDeviceCanAccessPeer(&can, reader, owner)));
    return can != 0;
  }

  absl::Status EnablePeerAccess(int reader, int owner) override {
    // Access is granted to the current device's context. The caller is
    // about to queue work on `reader` anyway, so it stays current.
    TFD_RETURN_IF_ERROR(TFD_CUDA_STATUS(cudaSetDevice(reader)));
    const cudaError_t e = cudaDeviceEnablePeerAccess(owner, 0);
    if (e == cudaErrorPeerAccessAlreadyEnabled) {
      // Someone else in the process (NCCL, another library) did it first.
      (void)cudaGetLastError();
      return absl::OkStatus();
    }
    return TFD_CUDA_STATUS(e);
  }

  absl::Status StreamWaitEvent(StreamRef stream, EventHandle event) override {
    return TFD_CUDA_STATUS(
        cudaStreamWaitEvent(AsStream(stream), static_cast<cudaEvent_t>(event), 0));
  }

  absl::Status QueueCopy(void* dst, StreamRef stream, const void* src, int src_device,
                         size_t n) override {
    if (src_device == stream.device) {
      return TFD_CUDA_STATUS(
          cudaMemcpyAsync(dst, src, n, cudaMemcpyDeviceToDevice, AsStream(stream)));
    }
    return TFD_CUDA_STATUS(
        cudaMemcpyPeerAsync(dst, stream.device, src, src_device, n, AsStream(stream)));
  }
};

class CudaStagedCopyBackend final : public StagedCopyBackend {
 public:
  // Each copy is issued with its stream's GPU current, as the event
  // recorded after it must be.
  absl::Status QueueDeviceToHost(void* dst, const void* src, size_t n, StreamRef s) override {
    TFD_RETURN_IF_ERROR(TFD_CUDA_STATUS(cudaSetDevice(s.device)));
    return TFD_CUDA_STATUS(cudaMemcpyAsync(dst, src, n, cudaMemcpyDeviceToHost, AsStream(s)));
  }
  absl::Status QueueHostToDevice(void* dst, const void* src, size_t n, StreamRef s) override {
    TFD_RETURN_IF_ERROR(TFD_CUDA_STATUS(cudaSetDevice(s.device)));
    return TFD_CUDA_STATUS(cudaMemcpyAsync(dst, src, n, cudaMemcpyHostToDevice, AsStream(s)));
  }
  absl::Status StreamWaitEvent(StreamRef s, EventHandle event) override {
    return TFD_CUDA_STATUS(cudaStreamWaitEvent(AsStream(s), static_cast<cudaEvent_t>(event), 0));
  }
  absl::Status SynchronizeStream(StreamRef s) override {
    return TFD_CUDA_STATUS(cudaStreamSynchronize(AsStream(s)));
  }
};

PeerCopyBackend* Backend() {
  static PeerCopyBackend* const backend = new CudaPeerCopyBackend();
  return backend;
}

}  // namespace

PeerAccess& CudaPeerAccess() {
  // Never deleted, as the devices are not.
  static PeerAccess* const access = new PeerAccess(Backend());
  return *access;
}

PeerCopier& CudaPeerCopier() {
  static PeerCopier* const copier = new PeerCopier(CudaEventBackend::Get(), Backend());
  return *copier;
}

StagedCopier& CudaStagedCopier() {
  static StagedCopier* const copier =
      new StagedCopier(CudaEventBackend::Get(), new CudaStagedCopyBackend(), &PinnedHostMemory());
  return *copier;
}

}  // namespace tfd
