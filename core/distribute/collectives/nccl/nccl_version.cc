#include "core/distribute/collectives/nccl/nccl_version.h"

#include <tuple>

#include "absl/strings/str_cat.h"
#include "core/framework/status.h"

namespace tfd {
namespace distribute {

NcclVersion DecodeNcclVersion(int code) {
  NcclVersion v;
  // The old encoding tops out at 2.8.99 = 2899; the new one starts at
  // 2.9.0 = 20900, so the two ranges do not overlap.
  const int per_major = code >= 10000 ? 10000 : 1000;
  v.major = code / per_major;
  v.minor = (code % per_major) / 100;
  v.patch = code % 100;
  return v;
}

std::string NcclVersionString(int code) {
  const NcclVersion v = DecodeNcclVersion(code);
  return absl::StrCat(v.major, ".", v.minor, ".", v.patch);
}

bool NcclVersionLess(int a, int b) {
  const NcclVersion x = DecodeNcclVersion(a);
  const NcclVersion y = DecodeNcclVersion(b);
  return std::tie(x.major, x.minor, x.patch) < std::tie(y.major, y.minor, y.patch);
}

absl::Status CheckNcclLibraryVersion(int loaded, int required, int built) {
  if (loaded <= 0) {
    return Internal("NCCL: ncclGetVersion returned ", loaded, ", which is not a version");
  }
  if (!NcclVersionLess(loaded, required)) return absl::OkStatus();
  return FailedPrecondition(
      "NCCL: the loaded library is NCCL ", NcclVersionString(loaded), ", but tfd was built with ",
      "NCCL ", NcclVersionString(built), " headers and fills their ncclConfig_t, which needs ",
      "NCCL ", NcclVersionString(required),
      " or newer; put a newer libnccl.so.2 first on the library path (for example a newer "
      "nvidia-nccl-cu13 Python package)");
}

}  // namespace distribute
}  // namespace tfd
