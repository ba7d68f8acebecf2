// Pinned (page-locked) host memory for staging host<->device copies: the
// GPU copies from it by DMA, at full bus speed and without a bounce
// buffer, and asynchronous copies need it. cudaHostAlloc is slower still
// than cudaMalloc and synchronizes the device, so buffers come from a
// CachingAllocator (caching_allocator.h) over a cudaHostAlloc backend and
// are reused once freed.
//
// Host buffers are reused by the next request at once, so a buffer must not
// be freed while an asynchronous copy from or to it is still queued; the
// device's own copies (CudaDevice::CopyHostToDevice, CopyDeviceToHost)
// return when done, which makes handing their buffers back safe.
//
// Thread safety: every function may be called from any thread.
//
//   TFD_ASSIGN_OR_RETURN(Tensor staging, PinnedHostTensor(DT_FLOAT, {256, 28, 28, 1}));
//   ... fill staging.data<float>() from the input pipeline ...
//   TFD_ASSIGN_OR_RETURN(Tensor on_gpu, staging.CopyTo(gpu));
#ifndef TFD_CORE_DEVICE_CUDA_PINNED_HOST_MEMORY_H_
#define TFD_CORE_DEVICE_CUDA_PINNED_HOST_MEMORY_H_

#include "absl/status/statusor.h"
#include "core/device/cuda/caching_allocator.h"
#include "core/framework/tensor.h"

namespace tfd {

// The process's pinned-memory cache (created on first use, never
// destroyed: tensors over it may outlive static destruction order).
CachingAllocator& PinnedHostAllocator();

// A host tensor whose buffer is pinned, returned to the cache when the
// last handle goes. RESOURCE_EXHAUSTED when no pinned memory can be had;
// CUDA's error when there is no driver.
absl::StatusOr<Tensor> PinnedHostTensor(DataType dtype, const TensorShape& shape);

}  // namespace tfd

#endif  // TFD_CORE_DEVICE_CUDA_PINNED_HOST_MEMORY_H_
