#include "core/device/cuda/pinned_host_memory.h"

#include <cuda_runtime_api.h>

#include <cstdio>
#include <memory>

#include "absl/strings/str_cat.h"
#include "core/device/cuda/cuda_event_backend.h"
#include "core/device/cuda/cuda_status.h"
#include "core/framework/status.h"

namespace tfd {
namespace {

// Host blocks from cudaHostAlloc, portable to every GPU's context.
class PinnedMemoryBackend : public DeviceMemoryBackend {
 public:
  absl::StatusOr<void*> Malloc(size_t bytes) override {
    void* ptr = nullptr;
    const cudaError_t err = cudaHostAlloc(&ptr, bytes, cudaHostAllocPortable);
    if (err == cudaErrorMemoryAllocation) {
      cudaGetLastError();  // an allocation failure is not sticky; clear it
      return absl::ResourceExhaustedError(
          absl::StrCat("cudaHostAlloc: no pinned host memory for ", bytes, " bytes"));
    }
    TFD_RETURN_IF_ERROR(TFD_CUDA_STATUS(err));
    return ptr;
  }
  absl::Status Free(void* ptr, size_t) override { return TFD_CUDA_STATUS(cudaFreeHost(ptr)); }
};

}  // namespace

PinnedHostPool& PinnedHostMemory() {
  static PinnedHostPool* pool = new PinnedHostPool(
      std::make_unique<PinnedMemoryBackend>(), std::make_unique<CudaEventBackend>(), "pinned_host");
  return *pool;
}

absl::StatusOr<Tensor> PinnedHostTensor(DataType dtype, const TensorShape& shape) {
  const size_t bytes = static_cast<size_t>(shape.num_elements()) * DataTypeSize(dtype);
  TFD_ASSIGN_OR_RETURN(void* data, PinnedHostMemory().Allocate(bytes));
  auto release = [](void* p, size_t) {
    // A release has no caller to report to; the block is then never reused.
    absl::Status s = PinnedHostMemory().Free(p);
    if (!s.ok()) std::fprintf(stderr, "tfd: pinned host tensor: %s\n", s.ToString().c_str());
  };
  absl::StatusOr<Tensor> t = Tensor::Wrap(dtype, shape, data, bytes, release);
  if (!t.ok()) PinnedHostMemory().Free(data).IgnoreError();
  return t;
}

}  // namespace tfd
