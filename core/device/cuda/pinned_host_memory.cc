#include "core/device/cuda/pinned_host_memory.h"

#include <cuda_runtime_api.h>

#include <memory>

#include "absl/strings/str_cat.h"
#include "core/device/cuda/cuda_status.h"
#include "core/framework/status.h"

namespace tfd {
namespace {

// Host segments from cudaHostAlloc, portable to every GPU's context.
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

// Host memory is not ordered by any stream; one key serves every user.
const int kHostStream = 0;

}  // namespace

CachingAllocator& PinnedHostAllocator() {
  static CachingAllocator* cache =
      new CachingAllocator(std::make_unique<PinnedMemoryBackend>(), "pinned_host");
  return *cache;
}

absl::StatusOr<Tensor> PinnedHostTensor(DataType dtype, const TensorShape& shape) {
  const size_t bytes = static_cast<size_t>(shape.num_elements()) * DataTypeSize(dtype);
  TFD_ASSIGN_OR_RETURN(void* data, PinnedHostAllocator().Allocate(bytes, &kHostStream));
  absl::StatusOr<Tensor> t = Tensor::Wrap(dtype, shape, data, bytes, [](void* p, size_t) {
    PinnedHostAllocator().Free(p);
  });
  if (!t.ok()) PinnedHostAllocator().Free(data);
  return t;
}

}  // namespace tfd
