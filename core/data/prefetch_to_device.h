// PrefetchToDevice: tf.data.experimental.prefetch_to_device. The last
// transform of an input pipeline that feeds one device: a background
// thread reads elements ahead, stages them in pinned host memory and
// copies them to the device on its copy stream while the device computes;
// an element handed out is on the device, and the device's computation
// waits for its copy (never the host). See internal/device_prefetcher.h
// for what is copied and what is not.
//
// On a device in host memory (the CPU, CPU logical devices) this is
// Prefetch: elements are read ahead and stay as they are. On devices
// without a separate copy queue (the Device defaults) the copies are
// synchronous but still made ahead, on the background thread.
//
// Thread safety: as every dataset (dataset.h).
//
//   TFD_ASSIGN_OR_RETURN(DatasetPtr ds, Batch(images, 256, true));
//   TFD_ASSIGN_OR_RETURN(ds, PrefetchToDevice(ds, gpu, /*buffer_size=*/2));
//   // every element of ds is on `gpu`
#ifndef TFD_CORE_DATA_PREFETCH_TO_DEVICE_H_
#define TFD_CORE_DATA_PREFETCH_TO_DEVICE_H_

#include <cstdint>

#include "absl/status/statusor.h"
#include "core/data/dataset.h"
#include "core/framework/device.h"

namespace tfd {
namespace data {

// Up to `buffer_size` elements of `input` are copied ahead to `device`.
// INVALID_ARGUMENT for a null input or device, or buffer_size < 1.
absl::StatusOr<DatasetPtr> PrefetchToDevice(DatasetPtr input, Device* device,
                                            int64_t buffer_size = 1);

}  // namespace data
}  // namespace tfd

#endif  // TFD_CORE_DATA_PREFETCH_TO_DEVICE_H_
