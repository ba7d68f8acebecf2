// CudaDevice: one GPU as a tfd Device ("/device:GPU:<ordinal>").
//
// Each device owns:
// - one compute stream. Every kernel, copy and memset for the device is
//   queued on it, so work on one device runs in the order it was issued
//   and a tensor's memory can be reused as soon as its last user is queued
//   (Note [One stream per device] in the .cc);
// - a CachingAllocator whose blocks belong to that stream;
// - a cuBLAS handle bound to that stream, with a workspace of its own;
// - a copy stream for the input pipeline's prefetch
//   (CopyHostToDeviceAsync), whose buffers come from a
//   CrossStreamAllocator (Note [The copy stream] in the .cc).
//
// Devices are created on first use by Get() and live for the process (as
// tensors hold raw Device pointers). Linking this library (alwayslink)
// registers them with core/device/device_registry.h as type GPU, so code
// without CUDA headers finds them with FindDevice("/device:GPU:0").
//
// Logical GPUs (TensorFlow's LogicalDeviceConfiguration): CreateLogical(
// counts) splits physical GPU i into counts[i] devices, numbered across
// the GPUs in order as TensorFlow numbers them ([2, 2] gives GPU:0 and
// GPU:1 on GPU 0, GPU:2 and GPU:3 on GPU 1; core/device/logical_devices.h).
// Each is a CudaDevice of its own (kernels take it as any GPU) that shares
// its physical device's stream, caching allocator and cuBLAS handle, so
// their work is ordered as one device's is. They exist so that a
// MirroredStrategy can run several replicas on one GPU; they are not
// listed in the device registry (as CPU logical devices are not). The
// split is the process's: made once, it cannot be changed.
//
// Host->device copies are staged in pinned memory (pinned_host_memory.h)
// and only queued: they return once the source may be reused, without
// waiting for the stream. Device->host copies return when the data has
// arrived (they synchronize the stream); device->device copies and
// memsets are only queued. Copies from another GPU are queued too, with
// no host wait: peer to peer where the GPUs reach each other (on one GPU,
// between its logical devices, on its stream), staged through pinned host
// memory on both GPUs' streams otherwise (CopyFromPeer, staged_copy.h).
// Synchronize() waits for everything queued on both streams.
//
// Thread safety: all methods may be called from any thread. Kernels run
// their launches after Activate(), which makes the device current on the
// calling thread.
//
//   if (CudaDevice::DeviceCount() > 0) {
//     TFD_ASSIGN_OR_RETURN(CudaDevice* gpu, CudaDevice::Get(0));
//     TFD_ASSIGN_OR_RETURN(Tensor x, host_tensor.CopyTo(gpu));
//   }
#ifndef TFD_CORE_DEVICE_CUDA_CUDA_DEVICE_H_
#define TFD_CORE_DEVICE_CUDA_CUDA_DEVICE_H_

#include <cublas_v2.h>
#include <cuda_runtime_api.h>

#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "absl/synchronization/mutex.h"
#include "absl/types/span.h"
#include "core/device/cuda/caching_allocator.h"
#include "core/device/cuda/cross_stream_allocator.h"
#include "core/framework/device.h"

namespace tfd {

class CudaDevice final : public Device {
 public:
  // GPUs visible to this process: 0, not an error, when there is no GPU or
  // no driver. Never crashes.
  static int DeviceCount();

  // The device for GPU `ordinal`, created on first use (stream, cuBLAS
  // handle). INVALID_ARGUMENT for a negative ordinal, NOT_FOUND past the
  // last GPU, and the CUDA or cuBLAS error if creation fails.
  static absl::StatusOr<CudaDevice*> Get(int ordinal);

  // Splits physical GPU i into counts[i] logical devices (see above; one
  // count per visible GPU) and returns them all: element j is
  // "/device:GPU:j". They are made by the first call and live for the
  // process; later calls with the same counts return them.
  // INVALID_ARGUMENT for a count below 1 or a count per GPU missing or
  // extra; FAILED_PRECONDITION for counts other than the first call's;
  // the errors of Get().
  static absl::StatusOr<std::vector<CudaDevice*>> CreateLogical(absl::Span<const int> counts);
  // Splits GPU `ordinal` into `n` logical devices, every other GPU staying
  // one, and returns GPU `ordinal`'s: CreateLogical(counts) with
  // counts[ordinal] = n, so they are "/device:GPU:<ordinal>" onwards.
  // INVALID_ARGUMENT for n < 1; the errors of CreateLogical(counts).
  static absl::StatusOr<std::vector<CudaDevice*>> CreateLogical(int ordinal, int n);

  // The physical GPU (cudaSetDevice's ordinal); equals id() except for
  // logical devices.
  int ordinal() const { return ordinal_; }
  // True for a device made by CreateLogical.
  bool is_logical() const { return physical_ != this; }
  // "NVIDIA H100 80GB HBM3", compute capability, memory: for logs.
  const std::string& description() const { return description_; }

  Allocator* allocator() override { return &allocator_; }
  CachingAllocator& caching_allocator() { return *physical_->cache_; }
  // The stream every operation on this device is queued on.
  cudaStream_t stream() const { return stream_; }

  // Makes this GPU the calling thread's current device (cudaSetDevice),
  // which kernel launches and cuBLAS calls need.
  absl::Status Activate() const;

  // Runs `fn` with this device's cuBLAS handle (bound to stream()), the
  // device active, and no other thread using the handle.
  absl::Status WithCublas(const std::function<absl::Status(cublasHandle_t)>& fn);

  absl::Status CopyHostToDevice(const void* src, void* dst, size_t n) override;
  absl::Status CopyDeviceToHost(const void* src, void* dst, size_t n) override;
  absl::Status CopyDeviceToDevice(const void* src, void* dst, size_t n) override;
  // True for `from` any CUDA device (CopyFromPeer queues every such copy).
  bool CanCopyFromPeer(Device* from) override;
  // From a logical device of the same GPU, or a GPU whose memory this one
  // can access (peer access, enabled on first use): queues the copy on
  // stream() (cudaMemcpyPeerAsync between GPUs) behind an event of
  // `from`'s stream, and makes `from`'s stream wait for it (Note [Ordering
  // a copy between GPUs] in peer_copy.h). From any other GPU: a copy into
  // a pinned block on `from`'s stream, then out of it on stream() behind
  // an event (Note [Staging a copy between GPUs] in staged_copy.h). No
  // host wait either way, unless pinned memory ran out.
  // FAILED_PRECONDITION for `from` not a CUDA device.
  absl::Status CopyFromPeer(Device* from, const void* src, void* dst, size_t n) override;
  absl::Status Memset(void* dst, int value, size_t n) override;
  absl::Status Synchronize() override;

  // The copy stream's buffers, reused only after the compute stream's
  // readers are done (CrossStreamAllocator).
  Allocator* async_copy_allocator() override;
  // Stages `src` in pinned memory, queues the copy on copy_stream() and
  // returns a fence holding an event recorded after it.
  absl::StatusOr<std::shared_ptr<DeviceFence>> CopyHostToDeviceAsync(const void* src, void* dst,
                                                                   size_t n) override;
  // cudaStreamWaitEvent(stream(), fence's event): no host wait.
  // INVALID_ARGUMENT for a fence another GPU (or device) made.
  absl::Status WaitForFence(const DeviceFence* fence) override;
  // The stream prefetch copies are queued on (shared by logical devices).
  cudaStream_t copy_stream() const { return copy_stream_; }

 private:
  CudaDevice(int ordinal, cudaStream_t stream, cudaStream_t copy_stream, cublasHandle_t cublas,
             std::string description);
  // Logical device `id` over `physical`.
  CudaDevice(int id, CudaDevice* physical);
  static absl::StatusOr<CudaDevice*> Create(int ordinal);
  // Queues a host->device copy on `stream` through a pinned block (or from
  // `src` itself when it is pinned memory of the pool); returns once `src`
  // may be reused.
  absl::Status QueueHostToDevice(const void* src, void* dst, size_t n, cudaStream_t stream);

  const int ordinal_;
  CudaDevice* const physical_;  // this, for a physical device.
  const cudaStream_t stream_;
  const cudaStream_t copy_stream_;
  const std::string description_;
  std::unique_ptr<CachingAllocator> cache_;  // Null on logical devices.
  StreamAllocator allocator_;
  // Null on logical devices, which use the physical device's.
  std::unique_ptr<CrossStreamAllocator> copy_allocator_;
  absl::Mutex cublas_mu_;
  const cublasHandle_t cublas_ ABSL_GUARDED_BY(cublas_mu_);
};

// `device` as a CudaDevice; INVALID_ARGUMENT naming it when it is not one
// (kernels registered for GPUs use this to reach the stream).
absl::StatusOr<CudaDevice*> AsCudaDevice(Device* device);

}  // namespace tfd

#endif  // TFD_CORE_DEVICE_CUDA_CUDA_DEVICE_H_
