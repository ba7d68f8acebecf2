#include "core/data/prefetch_to_device.h"

#include <memory>

#include "core/data/internal/device_prefetcher.h"
#include "core/framework/status.h"

namespace tfd {
namespace data {

absl::StatusOr<DatasetPtr> PrefetchToDevice(DatasetPtr input, Device* device,
                                            int64_t buffer_size) {
  const char* op = "PrefetchToDevice";
  if (input == nullptr) return InvalidArgument(op, ": input dataset is null");
  if (device == nullptr) return InvalidArgument(op, ": device is null");
  if (buffer_size < 1) return InvalidArgument(op, ": buffer_size must be >= 1, got ", buffer_size);
  auto make = [input, device, buffer_size]() -> absl::StatusOr<std::unique_ptr<Iterator>> {
    TFD_ASSIGN_OR_RETURN(std::shared_ptr<Iterator> it, input->MakeIterator());
    using Group = internal::DevicePrefetcher::Group;
    auto next = [it]() -> absl::StatusOr<std::optional<Group>> {
      TFD_ASSIGN_OR_RETURN(std::optional<Element> e, it->GetNext());
      if (!e) return std::optional<Group>();
      return std::optional<Group>(Group{*std::move(e)});
    };
    auto prefetcher = std::make_shared<internal::DevicePrefetcher>(
        std::move(next), std::vector<Device*>{device}, buffer_size, "PrefetchToDevice");
    return IteratorFromFn([prefetcher]() -> absl::StatusOr<std::optional<Element>> {
      TFD_ASSIGN_OR_RETURN(std::optional<Group> g, prefetcher->GetNext());
      if (!g) return std::optional<Element>();
      return std::optional<Element>(std::move((*g)[0]));
    });
  };
  return DatasetFromFn(
      "PrefetchToDevice(" + input->DebugString() + ", " + device->name() + ")",
      input->Cardinality(), make, TransformOf(input, [=](DatasetPtr in) {
        return PrefetchToDevice(std::move(in), device, buffer_size);
      }));
}

}  // namespace data
}  // namespace tfd
