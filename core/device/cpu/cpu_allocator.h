// The host allocator: 64-byte aligned blocks (a cache line, and what
// AVX-512 loads want) from the C heap, with usage counters.
#ifndef TFD_CORE_DEVICE_CPU_CPU_ALLOCATOR_H_
#define TFD_CORE_DEVICE_CPU_CPU_ALLOCATOR_H_

#include "core/framework/allocator.h"

namespace tfd {

// The process-wide host allocator. Never deleted.
Allocator* CpuAllocator();

}  // namespace tfd

#endif  // TFD_CORE_DEVICE_CPU_CPU_ALLOCATOR_H_
