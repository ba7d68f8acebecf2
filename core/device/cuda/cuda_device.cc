// Note [One stream per device]
// All computation for a GPU goes on one stream. That gives the semantics
// eager TensorFlow has on one GPU: ops run in issue order, so a kernel
// always sees its inputs written, and freeing a tensor whose readers are
// merely queued is safe, because whoever gets its memory next is queued
// behind them on the same stream (the caching allocator never moves
// blocks between streams).
//
// Host->device copies go on that stream too, and do not wait for it: the
// source is copied into a pinned block (or read in place when it is one),
// the DMA is queued, and the block is reused only once an event recorded
// after the DMA has completed (PinnedHostPool). A host input of an op
// (a batch, a learning rate, a step counter) therefore no longer drains
// the whole queue, which used to leave the GPU idle once per copy.
// Device->host copies still wait: the caller reads the bytes.
//
// Note [The copy stream]
// The input pipeline's prefetch (PrefetchToDevice, distributed input on
// GPU replicas) copies on a second stream so that the copies run while
// kernels do. Its ordering is explicit: the copy records an event (the
// fence), and the compute stream waits for it when the element is handed
// to the consumer (cudaStreamWaitEvent: the device waits, not the host).
// The buffers it fills belong to the copy stream in the caching allocator
// and are handed back to it only after an event on the compute stream,
// recorded when the buffer is freed, has completed (CrossStreamAllocator),
// so the next copy never overwrites what a kernel still reads.
#include "core/device/cuda/cuda_device.h"

#include <array>
#include <cstring>
#include <mutex>
#include <utility>

#include "absl/strings/str_format.h"
#include "core/device/cuda/cuda_event.h"
#include "core/device/cuda/cuda_event_backend.h"
#include "core/device/cuda/cuda_peer_copy.h"
#include "core/device/cuda/cuda_status.h"
#include "core/device/cuda/pinned_host_memory.h"
#include "core/device/device_registry.h"
#include "core/device/logical_devices.h"
#include "core/framework/device_counters.h"
#include "core/framework/status.h"

namespace tfd {
namespace {

// Segments for the caching allocator, from cudaMalloc on one GPU.
class CudaMemoryBackend : public DeviceMemoryBackend {
 public:
  explicit CudaMemoryBackend(int ordinal) : ordinal_(ordinal) {}

  absl::StatusOr<void*> Malloc(size_t bytes) override {
    TFD_RETURN_IF_ERROR(TFD_CUDA_STATUS(cudaSetDevice(ordinal_)));
    void* ptr = nullptr;
    TFD_RETURN_IF_ERROR(TFD_CUDA_STATUS(cudaMalloc(&ptr, bytes)));
    return ptr;
  }

  // cudaFree waits for the device to finish work that may use the memory.
  absl::Status Free(void* ptr, size_t bytes) override {
    TFD_RETURN_IF_ERROR(TFD_CUDA_STATUS(cudaSetDevice(ordinal_)));
    return TFD_CUDA_STATUS(cudaFree(ptr));
  }

 private:
  const int ordinal_;
};

// More GPUs than any machine has; devices past it are refused.
constexpr int kMaxDevices = 64;

struct DeviceTable {
  absl::Mutex mu;
  std::array<CudaDevice*, kMaxDevices> devices ABSL_GUARDED_BY(mu) = {};
};

DeviceTable& Table() {
  static DeviceTable* const table = new DeviceTable();
  return *table;
}

// The ready marker of a copy on a GPU's copy stream.
struct CudaFence : DeviceFence {
  CudaFence(int ordinal, CudaEvent event) : ordinal(ordinal), event(std::move(event)) {}
  const int ordinal;  // The physical GPU.
  CudaEvent event;
};

}  // namespace

int CudaDevice::DeviceCount() {
  int count = 0;
  // Without a GPU or a driver this fails (cudaErrorNoDevice,
  // cudaErrorInsufficientDriver): that means zero devices.
  if (!TFD_CUDA_STATUS(cudaGetDeviceCount(&count)).ok()) return 0;
  return count;
}

CudaDevice::CudaDevice(int ordinal, cudaStream_t stream, cudaStream_t copy_stream,
                       cublasHandle_t cublas, std::string description)
    : Device(DeviceType::kGPU, ordinal),
      ordinal_(ordinal),
      physical_(this),
      stream_(stream),
      copy_stream_(copy_stream),
      description_(std::move(description)),
      cache_(std::make_unique<CachingAllocator>(std::make_unique<CudaMemoryBackend>(ordinal),
                                                absl::StrFormat("GPU:%d", ordinal))),
      allocator_(cache_.get(), stream),
      copy_allocator_(std::make_unique<CrossStreamAllocator>(
          cache_.get(), CudaEventBackend::Get(), StreamRef{ordinal, copy_stream},
          StreamRef{ordinal, stream})),
      cublas_(cublas) {}

CudaDevice::CudaDevice(int id, CudaDevice* physical)
    : Device(DeviceType::kGPU, id),
      ordinal_(physical->ordinal()),
      physical_(physical),
      stream_(physical->stream()),
      copy_stream_(physical->copy_stream()),
      description_(absl::StrFormat("logical GPU %d on %s", id, physical->description())),
      allocator_(physical->cache_.get(), physical->stream()),
      cublas_(nullptr) {}

absl::StatusOr<CudaDevice*> CudaDevice::Create(int ordinal) {
  TFD_RETURN_IF_ERROR(TFD_CUDA_STATUS(cudaSetDevice(ordinal)));
  cudaDeviceProp prop;
  TFD_RETURN_IF_ERROR(TFD_CUDA_STATUS(cudaGetDeviceProperties(&prop, ordinal)));
  // Non-blocking: the legacy default stream must not serialize with ours.
  cudaStream_t stream = nullptr;
  TFD_RETURN_IF_ERROR(
      TFD_CUDA_STATUS(cudaStreamCreateWithFlags(&stream, cudaStreamNonBlocking)));
  cudaStream_t copy_stream = nullptr;
  absl::Status s =
      TFD_CUDA_STATUS(cudaStreamCreateWithFlags(&copy_stream, cudaStreamNonBlocking));
  if (!s.ok()) {
    cudaStreamDestroy(stream);
    return s;
  }
  cublasHandle_t cublas = nullptr;
  s = TFD_CUBLAS_STATUS(cublasCreate(&cublas));
  if (s.ok()) s = TFD_CUBLAS_STATUS(cublasSetStream(cublas, stream));
  // Full float32 precision: TF32 tensor-core math would round inputs to a
  // 10-bit mantissa and break parity with the CPU kernels.
  if (s.ok()) s = TFD_CUBLAS_STATUS(cublasSetMathMode(cublas, CUBLAS_DEFAULT_MATH));
  // An explicit workspace of the size NVIDIA recommends (32 MiB on Hopper
  // and later, 4 MiB before): with less, cuBLAS may pick slower GEMM
  // kernels. Set after cublasSetStream, which resets it. Never freed, as
  // the device is not; it serves one stream under cublas_mu_.
  void* workspace = nullptr;
  const size_t workspace_bytes = (prop.major >= 9 ? size_t{32} : size_t{4}) << 20;
  if (s.ok()) s = TFD_CUDA_STATUS(cudaMalloc(&workspace, workspace_bytes));
  if (s.ok()) s = TFD_CUBLAS_STATUS(cublasSetWorkspace(cublas, workspace, workspace_bytes));
  if (!s.ok()) {
    if (workspace != nullptr) cudaFree(workspace);
    if (cublas != nullptr) cublasDestroy(cublas);
    cudaStreamDestroy(copy_stream);
    cudaStreamDestroy(stream);
    return s;
  }
  const std::string description = absl::StrFormat(
      "%s, compute capability %d.%d, %.1f GiB, %d SMs", prop.name, prop.major, prop.minor,
      prop.totalGlobalMem / static_cast<double>(1ull << 30), prop.multiProcessorCount);
  return new CudaDevice(ordinal, stream, copy_stream, cublas, description);
}

absl::StatusOr<CudaDevice*> CudaDevice::Get(int ordinal) {
  if (ordinal < 0) return InvalidArgument("GPU ordinal must be >= 0, got ", ordinal);
  const int count = DeviceCount();
  if (ordinal >= count || ordinal >= kMaxDevices) {
    return NotFound("GPU:", ordinal, " does not exist: ", count, " GPU",
                    count == 1 ? " is" : "s are", " visible");
  }
  DeviceTable& table = Table();
  absl::MutexLock lock(&table.mu);
  CudaDevice*& slot = table.devices[ordinal];
  if (slot == nullptr) {
    // Never deleted: tensors anywhere may point at it until exit, and
    // tearing down CUDA objects during static destruction is unsafe.
    TFD_ASSIGN_OR_RETURN(slot, Create(ordinal));
  }
  return slot;
}

absl::StatusOr<std::vector<CudaDevice*>> CudaDevice::CreateLogical(
    absl::Span<const int> counts) {
  const int count = DeviceCount();
  if (counts.size() != static_cast<size_t>(count)) {
    return InvalidArgument("CreateLogical: need one count of logical devices per GPU (", count,
                           " GPU", count == 1 ? " is" : "s are", " visible), got ",
                           counts.size());
  }
  // Every physical GPU first, so that the maker below cannot fail.
  for (int i = 0; i < count; ++i) TFD_RETURN_IF_ERROR(Get(i).status());
  // Never deleted, as the devices it made are not.
  static auto* table = new LogicalDeviceTable(
      [](int physical, int id) -> Device* { return new CudaDevice(id, *Get(physical)); });
  TFD_ASSIGN_OR_RETURN(std::vector<LogicalDevice> all, table->Create(counts));
  std::vector<CudaDevice*> devices;
  devices.reserve(all.size());
  for (const LogicalDevice& d : all) devices.push_back(static_cast<CudaDevice*>(d.device));
  return devices;
}

absl::StatusOr<std::vector<CudaDevice*>> CudaDevice::CreateLogical(int ordinal, int n) {
  if (n < 1) return InvalidArgument("CreateLogical: need at least 1 logical GPU, got ", n);
  TFD_RETURN_IF_ERROR(Get(ordinal).status());
  std::vector<int> counts(DeviceCount(), 1);
  counts[ordinal] = n;
  TFD_ASSIGN_OR_RETURN(std::vector<CudaDevice*> all, CreateLogical(counts));
  // GPUs before `ordinal` are one logical device each.
  return std::vector<CudaDevice*>(all.begin() + ordinal, all.begin() + ordinal + n);
}

absl::Status CudaDevice::Activate() const {
  TFD_RETURN_IF_ERROR(TFD_CUDA_STATUS(cudaSetDevice(ordinal_)));
  // Kernels check their launches with cudaGetLastError(), which returns
  // whatever non-sticky error the thread's last failed runtime call left,
  // ours or one inside cuBLAS, cuDNN or NCCL. Kernels activate their device
  // before launching, so clearing it here keeps an old failure from being
  // reported as the launch's. A sticky error (a faulted context) fails the
  // next call again, so nothing real is lost.
  (void)cudaGetLastError();
  return absl::OkStatus();
}

absl::Status CudaDevice::WithCublas(const std::function<absl::Status(cublasHandle_t)>& fn) {
  // Logical devices share the physical device's handle (and its lock).
  if (physical_ != this) return physical_->WithCublas(fn);
  TFD_RETURN_IF_ERROR(Activate());
  absl::MutexLock lock(&cublas_mu_);
  return fn(cublas_);
}

absl::Status CudaDevice::QueueHostToDevice(const void* src, void* dst, size_t n,
                                           cudaStream_t stream) {
  PinnedHostPool& pinned = PinnedHostMemory();
  const StreamRef on{ordinal_, stream};
  if (pinned.Contains(src, n)) {
    // Already pinned and the pool's: read in place; the pool keeps its
    // block from being reused until this copy ran.
    TFD_RETURN_IF_ERROR(
        TFD_CUDA_STATUS(cudaMemcpyAsync(dst, src, n, cudaMemcpyHostToDevice, stream)));
    return pinned.RecordStream(src, on);
  }
  absl::StatusOr<void*> staging = pinned.Allocate(n);
  if (!staging.ok()) {
    if (!absl::IsResourceExhausted(staging.status())) return staging.status();
    // No pinned memory to be had: copy from pageable memory and wait, as
    // the caller may reuse `src` as soon as this returns.
    TFD_RETURN_IF_ERROR(
        TFD_CUDA_STATUS(cudaMemcpyAsync(dst, src, n, cudaMemcpyHostToDevice, stream)));
    CountDeviceEvent(DeviceEvent::kSynchronize);
    return TFD_CUDA_STATUS(cudaStreamSynchronize(stream));
  }
  std::memcpy(*staging, src, n);
  absl::Status s =
      TFD_CUDA_STATUS(cudaMemcpyAsync(dst, *staging, n, cudaMemcpyHostToDevice, stream));
  // Without a queued copy there is no stream to wait for: freed at once.
  if (s.ok()) s = pinned.RecordStream(*staging, on);
  absl::Status freed = pinned.Free(*staging);
  return s.ok() ? freed : s;
}

absl::Status CudaDevice::CopyHostToDevice(const void* src, void* dst, size_t n) {
  if (n == 0) return absl::OkStatus();
  CountDeviceEvent(DeviceEvent::kCopyToDevice);
  TFD_RETURN_IF_ERROR(Activate());
  return QueueHostToDevice(src, dst, n, stream_);
}

Allocator* CudaDevice::async_copy_allocator() { return physical_->copy_allocator_.get(); }

absl::StatusOr<std::shared_ptr<DeviceFence>> CudaDevice::CopyHostToDeviceAsync(const void* src,
                                                                             void* dst, size_t n) {
  if (n == 0) return std::shared_ptr<DeviceFence>();
  CountDeviceEvent(DeviceEvent::kPrefetchCopyToDevice);
  TFD_RETURN_IF_ERROR(Activate());
  TFD_RETURN_IF_ERROR(QueueHostToDevice(src, dst, n, copy_stream_));
  TFD_ASSIGN_OR_RETURN(CudaEvent done, CudaEvent::Create(ordinal_));
  TFD_RETURN_IF_ERROR(done.Record(copy_stream_));
  return std::shared_ptr<DeviceFence>(std::make_shared<CudaFence>(ordinal_, std::move(done)));
}

absl::Status CudaDevice::WaitForFence(const DeviceFence* fence) {
  if (fence == nullptr) return absl::OkStatus();
  auto* cuda = dynamic_cast<const CudaFence*>(fence);
  if (cuda == nullptr || cuda->ordinal != ordinal_) {
    return InvalidArgument(name(), ": cannot wait for a fence made by another device");
  }
  TFD_RETURN_IF_ERROR(Activate());
  return cuda->event.MakeStreamWait(stream_);
}

absl::Status CudaDevice::CopyDeviceToHost(const void* src, void* dst, size_t n) {
  if (n == 0) return absl::OkStatus();
  CountDeviceEvent(DeviceEvent::kCopyToHost);
  TFD_RETURN_IF_ERROR(Activate());
  TFD_RETURN_IF_ERROR(
      TFD_CUDA_STATUS(cudaMemcpyAsync(dst, src, n, cudaMemcpyDeviceToHost, stream_)));
  return TFD_CUDA_STATUS(cudaStreamSynchronize(stream_));
}

absl::Status CudaDevice::CopyDeviceToDevice(const void* src, void* dst, size_t n) {
  if (n == 0) return absl::OkStatus();
  TFD_RETURN_IF_ERROR(Activate());
  return TFD_CUDA_STATUS(cudaMemcpyAsync(dst, src, n, cudaMemcpyDeviceToDevice, stream_));
}

bool CudaDevice::CanCopyFromPeer(Device* from) {
  // Any GPU: peer to peer where they reach each other, else staged through
  // pinned host memory, queued either way (CopyFromPeer).
  return dynamic_cast<CudaDevice*>(from) != nullptr;
}

absl::Status CudaDevice::CopyFromPeer(Device* from, const void* src, void* dst, size_t n) {
  auto* gpu = dynamic_cast<CudaDevice*>(from);
  if (gpu == nullptr) {
    return FailedPrecondition(name(), " cannot copy directly from ",
                              from == nullptr ? "no device" : from->name());
  }
  if (n == 0) return absl::OkStatus();
  TFD_RETURN_IF_ERROR(Activate());
  const StreamRef from_stream{gpu->ordinal_, gpu->stream_};
  const StreamRef to_stream{ordinal_, stream_};
  // Logical devices of one GPU share its stream and memory.
  if (gpu->ordinal_ == ordinal_ || CudaPeerAccess().Usable(ordinal_, gpu->ordinal_)) {
    return CudaPeerCopier().Copy(src, from_stream, dst, to_stream, n);
  }
  return CudaStagedCopier().Copy(src, from_stream, dst, to_stream, n);
}

absl::Status CudaDevice::Memset(void* dst, int value, size_t n) {
  if (n == 0) return absl::OkStatus();
  TFD_RETURN_IF_ERROR(Activate());
  return TFD_CUDA_STATUS(cudaMemsetAsync(dst, value, n, stream_));
}

absl::Status CudaDevice::Synchronize() {
  CountDeviceEvent(DeviceEvent::kSynchronize);
  TFD_RETURN_IF_ERROR(Activate());
  TFD_RETURN_IF_ERROR(TFD_CUDA_STATUS(cudaStreamSynchronize(copy_stream_)));
  return TFD_CUDA_STATUS(cudaStreamSynchronize(stream_));
}

absl::StatusOr<CudaDevice*> AsCudaDevice(Device* device) {
  auto* cuda = dynamic_cast<CudaDevice*>(device);
  if (cuda == nullptr) {
    return InvalidArgument("expected a CUDA device, got ",
                           device == nullptr ? "no device" : device->name());
  }
  return cuda;
}

TFD_REGISTER_DEVICE_FACTORY(
    DeviceType::kGPU,
    (DeviceFactory{&CudaDevice::DeviceCount, [](int index) -> absl::StatusOr<Device*> {
                     TFD_ASSIGN_OR_RETURN(CudaDevice * device, CudaDevice::Get(index));
                     return device;
                   }}));

}  // namespace tfd
