#include "core/framework/device_constants.h"

#include <cstring>
#include <string>
#include <tuple>

#include "absl/container/flat_hash_map.h"
#include "absl/synchronization/mutex.h"
#include "core/framework/status.h"

namespace tfd {
namespace {

constexpr size_t kMaxEntries = 4096;

// (device, dtype, rank + dims + value bytes). A scalar's key string stays
// within std::string's inline storage, so a lookup on Execute's path
// allocates nothing.
using Key = std::tuple<const Device*, int, std::string>;

std::string ShapeAndBytes(const Tensor& value) {
  const auto dims = value.shape().dims();
  std::string key(1, static_cast<char>(dims.size()));
  key.append(reinterpret_cast<const char*>(dims.data()), dims.size() * sizeof(int64_t));
  key.append(static_cast<const char*>(value.raw_data()), value.TotalBytes());
  return key;
}

absl::Mutex mu;
// Never destroyed: its tensors point at devices that live for the process.
absl::flat_hash_map<Key, Tensor>& Cache() ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu) {
  static auto* cache = new absl::flat_hash_map<Key, Tensor>();
  return *cache;
}

}  // namespace

absl::StatusOr<Tensor> DeviceConstant(const Tensor& value, Device* device) {
  if (!value.defined() || !value.device()->host_memory() || value.TotalBytes() > kDeviceConstantMaxBytes) {
    return InvalidArgument("DeviceConstant: expected a host tensor of at most ", kDeviceConstantMaxBytes,
                           " bytes, got ",
                           value.defined() ? value.shape().DebugString() + " " +
                                                 DataTypeName(value.dtype()) + " on " +
                                                 value.device()->name()
                                           : std::string("an undefined tensor"));
  }
  if (device == nullptr || device->host_memory()) return value;
  Key key(device, static_cast<int>(value.dtype()), ShapeAndBytes(value));
  {
    absl::MutexLock lock(&mu);
    auto it = Cache().find(key);
    if (it != Cache().end()) return it->second;
  }
  TFD_ASSIGN_OR_RETURN(Tensor copy, value.CopyTo(device));
  absl::MutexLock lock(&mu);
  if (Cache().size() < kMaxEntries) Cache().emplace(std::move(key), copy);
  return copy;
}

}  // namespace tfd
