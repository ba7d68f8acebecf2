// Reads IDX files, the format of MNIST and Fashion-MNIST, gzip-compressed
// or not (Debian's dataset-fashion-mnist ships them gzipped under
// /usr/share/datasets/fashion-mnist).
//
// IDX layout: two zero bytes, a type byte (0x08 = uint8, 0x09 = int8,
// 0x0B = int16, 0x0C = int32, 0x0D = float32, 0x0E = float64), a rank byte,
// then `rank` big-endian uint32 dimensions, then the elements big-endian.
//
//   TFD_ASSIGN_OR_RETURN(Tensor images,
//       ReadIdxFile("/usr/share/datasets/fashion-mnist/train-images-idx3-ubyte.gz"));
//   // images: uint8 [60000, 28, 28]
#ifndef TFD_CORE_DATA_IDX_FILE_H_
#define TFD_CORE_DATA_IDX_FILE_H_

#include <string>

#include "absl/status/statusor.h"
#include "core/framework/tensor.h"

namespace tfd {
namespace data {

// The whole file as a host tensor of the file's element type (uint8, int8,
// int16, int32, float32, float64) and shape. NOT_FOUND when the file cannot
// be opened; DATA_LOSS naming the file for a bad header or a truncated body.
absl::StatusOr<Tensor> ReadIdxFile(const std::string& path);

// Where Debian's dataset-fashion-mnist puts the data.
constexpr char kFashionMnistDir[] = "/usr/share/datasets/fashion-mnist";

}  // namespace data
}  // namespace tfd

#endif  // TFD_CORE_DATA_IDX_FILE_H_
