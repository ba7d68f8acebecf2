#include "core/data/idx_file.h"

#include <zlib.h>

#include <cstring>
#include <limits>
#include <memory>
#include <vector>

#include "core/framework/status.h"

namespace tfd {
namespace data {
namespace {

struct GzCloser {
  void operator()(gzFile f) const { gzclose(f); }
};
using GzFile = std::unique_ptr<gzFile_s, GzCloser>;

// Reads exactly n bytes; gzread also reads files that are not compressed.
absl::Status ReadExactly(gzFile f, void* dst, size_t n, const std::string& path,
                         const char* what) {
  char* out = static_cast<char*>(dst);
  while (n > 0) {
    const unsigned chunk = static_cast<unsigned>(std::min<size_t>(n, 1u << 30));
    const int got = gzread(f, out, chunk);
    if (got <= 0) {
      int err = 0;
      const char* msg = gzerror(f, &err);
      return absl::DataLossError(absl::StrCat(path, ": truncated or corrupt IDX file while reading ",
                                              what, err != Z_OK ? absl::StrCat(" (", msg, ")") : ""));
    }
    out += got;
    n -= got;
  }
  return absl::OkStatus();
}

uint32_t BigEndian32(const unsigned char* b) {
  return (uint32_t{b[0]} << 24) | (uint32_t{b[1]} << 16) | (uint32_t{b[2]} << 8) | b[3];
}

}  // namespace

absl::StatusOr<Tensor> ReadIdxFile(const std::string& path) {
  GzFile f(gzopen(path.c_str(), "rb"));
  if (f == nullptr) return NotFound("cannot open IDX file ", path);
  unsigned char magic[4];
  TFD_RETURN_IF_ERROR(ReadExactly(f.get(), magic, 4, path, "the header"));
  if (magic[0] != 0 || magic[1] != 0) {
    return absl::DataLossError(absl::StrCat(path, ": not an IDX file (bad magic)"));
  }
  DataType dtype;
  switch (magic[2]) {
    case 0x08: dtype = DT_UINT8; break;
    case 0x09: dtype = DT_INT8; break;
    case 0x0B: dtype = DT_INT16; break;
    case 0x0C: dtype = DT_INT32; break;
    case 0x0D: dtype = DT_FLOAT; break;
    case 0x0E: dtype = DT_DOUBLE; break;
    default:
      return absl::DataLossError(
          absl::StrCat(path, ": unknown IDX element type 0x", absl::Hex(magic[2])));
  }
  const int rank = magic[3];
  std::vector<int64_t> dims(rank);
  for (int i = 0; i < rank; ++i) {
    unsigned char b[4];
    TFD_RETURN_IF_ERROR(ReadExactly(f.get(), b, 4, path, "the dimensions"));
    dims[i] = BigEndian32(b);
  }
  absl::StatusOr<TensorShape> shape = TensorShape::FromDims(dims);
  if (!shape.ok()) {
    return absl::DataLossError(absl::StrCat(path, ": ", shape.status().message()));
  }
  const size_t elem = DataTypeSize(dtype);
  if (shape->num_elements() > std::numeric_limits<int64_t>::max() / 16) {
    return absl::DataLossError(absl::StrCat(path, ": implausible IDX shape ",
                                            shape->DebugString()));
  }
  TFD_ASSIGN_OR_RETURN(Tensor t, Tensor::Allocate(dtype, *shape));
  TFD_RETURN_IF_ERROR(ReadExactly(f.get(), t.raw_data(), t.TotalBytes(), path, "the data"));
  if (elem > 1) {  // Big-endian on disk; swap to the host's little-endian.
    auto* bytes = static_cast<unsigned char*>(t.raw_data());
    for (int64_t i = 0; i < t.NumElements(); ++i) {
      std::reverse(bytes + i * elem, bytes + (i + 1) * elem);
    }
  }
  return t;
}

}  // namespace data
}  // namespace tfd
