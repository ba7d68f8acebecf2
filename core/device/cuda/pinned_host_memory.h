// Pinned (page-locked) host memory for host<->device copies: the GPU copies
// from it by DMA, at full bus speed, and asynchronous copies need it.
// cudaHostAlloc is slow and synchronizes the device, so blocks come from
// one process-wide PinnedHostPool (pinned_host_pool.h) over cudaHostAlloc
// and CUDA events, and are reused once freed and once every stream that
// read them got past the read.
//
// CudaDevice stages every host-to-device copy in this pool, so copies
// return without waiting for the GPU. A host tensor made by
// PinnedHostTensor is copied from directly (no staging): freeing it right
// after a copy is safe (its block is reused only after the copy ran), but
// writing it while a copy from it may still be queued is not, as with
// PyTorch's pin_memory() and non_blocking copies. tfd's own ops never
// write a tensor a copy shares; code writing raw data() must synchronize
// the device first.
//
// Thread safety: every function may be called from any thread.
//
//   TFD_ASSIGN_OR_RETURN(Tensor staging, PinnedHostTensor(DT_FLOAT, {256, 28, 28, 1}));
//   ... fill staging.data<float>() from the input pipeline ...
//   TFD_ASSIGN_OR_RETURN(Tensor on_gpu, staging.CopyTo(gpu));
#ifndef TFD_CORE_DEVICE_CUDA_PINNED_HOST_MEMORY_H_
#define TFD_CORE_DEVICE_CUDA_PINNED_HOST_MEMORY_H_

#include "absl/status/statusor.h"
#include "core/device/cuda/pinned_host_pool.h"
#include "core/framework/tensor.h"

namespace tfd {

// The process's pinned-memory pool (created on first use, never
// destroyed: tensors over it may outlive static destruction order).
PinnedHostPool& PinnedHostMemory();

// A host tensor whose buffer is pinned, returned to the pool when the last
// handle goes. RESOURCE_EXHAUSTED when no pinned memory can be had;
// CUDA's error when there is no driver.
absl::StatusOr<Tensor> PinnedHostTensor(DataType dtype, const TensorShape& shape);

}  // namespace tfd

#endif  // TFD_CORE_DEVICE_CUDA_PINNED_HOST_MEMORY_H_
