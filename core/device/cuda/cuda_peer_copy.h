// The process's copies between GPUs: PeerAccess and PeerCopier
// (peer_copy.h) over the CUDA runtime (cudaDeviceCanAccessPeer,
// cudaDeviceEnablePeerAccess, cudaStreamWaitEvent, cudaMemcpyPeerAsync)
// and CudaEventBackend, and for GPUs that cannot reach each other a
// StagedCopier (staged_copy.h) through PinnedHostMemory(). CudaDevice::
// CopyFromPeer uses them; they are made on first use and live for the
// process.
//
// Thread safety: all three objects may be used from any thread.
#ifndef TFD_CORE_DEVICE_CUDA_CUDA_PEER_COPY_H_
#define TFD_CORE_DEVICE_CUDA_CUDA_PEER_COPY_H_

#include "core/device/cuda/peer_copy.h"
#include "core/device/cuda/staged_copy.h"

namespace tfd {

// Which GPUs of this process read each other's memory directly.
PeerAccess& CudaPeerAccess();

// Orders and queues copies between GPU streams.
PeerCopier& CudaPeerCopier();

// Stages copies between GPUs that cannot reach each other through pinned
// host memory, without host waits.
StagedCopier& CudaStagedCopier();

}  // namespace tfd

#endif  // TFD_CORE_DEVICE_CUDA_CUDA_PEER_COPY_H_
