// NCCL version codes and the check that the NCCL library loaded at run
// time can take the structures tfd was compiled to fill.
//
// tfd compiles against the CUDA toolkit's nccl.h, but a GPU machine loads
// whatever libnccl.so.2 it has (often the one of the Python nvidia-nccl
// package). ncclCommInitRankConfig reads an ncclConfig_t whose layout is
// versioned by NCCL minor release (the header names it ncclConfig_v22800
// for 2.28): a library older than that layout may misread the fields it
// does not know. So the communicator asks the library for its version
// (ncclGetVersion) and refuses, with both versions named, a library older
// than the layout it fills. Plain C++: the comparison is tested on every
// machine.
//
//   absl::Status s = CheckNcclLibraryVersion(/*loaded=*/22703,
//                                            /*required=*/22800,
//                                            /*built=*/22809);
//   // FAILED_PRECONDITION: "... loaded NCCL 2.27.3 ... needs 2.28.0 ..."
//
// Thread safety: pure functions.
#ifndef TFD_CORE_DISTRIBUTE_COLLECTIVES_NCCL_NCCL_VERSION_H_
#define TFD_CORE_DISTRIBUTE_COLLECTIVES_NCCL_NCCL_VERSION_H_

#include <string>

#include "absl/status/status.h"

namespace tfd {
namespace distribute {

struct NcclVersion {
  int major = 0;
  int minor = 0;
  int patch = 0;
};

// Decodes NCCL_VERSION_CODE / ncclGetVersion's integer. NCCL changed the
// encoding after 2.8: X*1000 + Y*100 + Z up to 2.8.x, X*10000 + Y*100 + Z
// from 2.9 on (nccl.h's NCCL_VERSION macro), so 2708 is 2.7.8 and 22809
// is 2.28.9.
NcclVersion DecodeNcclVersion(int code);

// "2.28.9".
std::string NcclVersionString(int code);

// True when `a` is an earlier release than `b`.
bool NcclVersionLess(int a, int b);

// OK when the library version `loaded` is at least `required` (the
// release whose ncclConfig_t layout this build fills). Otherwise
// FAILED_PRECONDITION naming the loaded version, the required one and the
// headers' version `built`; INTERNAL for a code that is not a version
// (<= 0, which no library returns).
absl::Status CheckNcclLibraryVersion(int loaded, int required, int built);

}  // namespace distribute
}  // namespace tfd

#endif  // TFD_CORE_DISTRIBUTE_COLLECTIVES_NCCL_NCCL_VERSION_H_
