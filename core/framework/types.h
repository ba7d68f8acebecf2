// DataType: the element types of tensors, numbered exactly as TensorFlow's
// types.proto numbers them (DT_FLOAT = 1, ...), so a dtype crosses into
// GraphDefs, checkpoints and the C API without translation.
#ifndef TFD_CORE_FRAMEWORK_TYPES_H_
#define TFD_CORE_FRAMEWORK_TYPES_H_

#include <cstddef>
#include <cstdint>
#include <string>

#include "absl/strings/string_view.h"
#include "core/framework/float16.h"

namespace tfd {

enum DataType : int {
  DT_INVALID = 0,
  DT_FLOAT = 1,
  DT_DOUBLE = 2,
  DT_INT32 = 3,
  DT_UINT8 = 4,
  DT_INT16 = 5,
  DT_INT8 = 6,
  DT_STRING = 7,
  DT_COMPLEX64 = 8,
  DT_INT64 = 9,
  DT_BOOL = 10,
  DT_QINT8 = 11,
  DT_QUINT8 = 12,
  DT_QINT32 = 13,
  DT_BFLOAT16 = 14,
  DT_QINT16 = 15,
  DT_QUINT16 = 16,
  DT_UINT16 = 17,
  DT_COMPLEX128 = 18,
  DT_HALF = 19,
  DT_RESOURCE = 20,
  DT_VARIANT = 21,
  DT_UINT32 = 22,
  DT_UINT64 = 23,
};

// Bytes per element; 0 for types tfd does not store densely (string,
// resource, variant, quantized). Complex numbers are stored (real and
// imaginary part, as std::complex lays them out) but no kernel computes
// with them.
size_t DataTypeSize(DataType dtype);

// TensorFlow's Python-side name: "float32", "int64", "bfloat16", "string".
std::string DataTypeName(DataType dtype);

// Parses the names DataTypeName produces (and "float", "double", "half").
bool DataTypeFromName(absl::string_view name, DataType* dtype);

bool IsFloatingType(DataType dtype);  // half, bfloat16, float, double
bool IsIntegerType(DataType dtype);   // signed and unsigned ints

// Whether elements of `dtype` are objects rather than plain bytes: string
// (std::string), and resource and variant handles. Tensors of these types
// live in host memory only: no kernel of another device type runs on them
// and no copy moves them to a device, since copying their bytes would copy
// pointers into host memory (Note [Host-only dtypes] in placement.h).
bool IsHostOnlyType(DataType dtype);

// Maps a C++ element type to its DataType: DataTypeToEnum<float>::value.
template <typename T>
struct DataTypeToEnum;
#define TFD_MATCH_TYPE_AND_ENUM(TYPE, ENUM) \
  template <>                               \
  struct DataTypeToEnum<TYPE> {             \
    static constexpr DataType value = ENUM; \
  }
TFD_MATCH_TYPE_AND_ENUM(float, DT_FLOAT);
TFD_MATCH_TYPE_AND_ENUM(double, DT_DOUBLE);
TFD_MATCH_TYPE_AND_ENUM(int32_t, DT_INT32);
TFD_MATCH_TYPE_AND_ENUM(uint8_t, DT_UINT8);
TFD_MATCH_TYPE_AND_ENUM(uint16_t, DT_UINT16);
TFD_MATCH_TYPE_AND_ENUM(uint32_t, DT_UINT32);
TFD_MATCH_TYPE_AND_ENUM(uint64_t, DT_UINT64);
TFD_MATCH_TYPE_AND_ENUM(int16_t, DT_INT16);
TFD_MATCH_TYPE_AND_ENUM(int8_t, DT_INT8);
TFD_MATCH_TYPE_AND_ENUM(std::string, DT_STRING);
TFD_MATCH_TYPE_AND_ENUM(int64_t, DT_INT64);
TFD_MATCH_TYPE_AND_ENUM(bool, DT_BOOL);
TFD_MATCH_TYPE_AND_ENUM(bfloat16, DT_BFLOAT16);
TFD_MATCH_TYPE_AND_ENUM(half, DT_HALF);
#undef TFD_MATCH_TYPE_AND_ENUM

}  // namespace tfd

// Calls MACRO(T) inside a switch over a runtime dtype, e.g.
//   switch (dtype) { TFD_CASES_FLOAT(CASE) default: return error; }
// where CASE(T) expands to `case DataTypeToEnum<T>::value: ...`.
#define TFD_FLOAT_TYPES(M) M(float) M(double) M(::tfd::half) M(::tfd::bfloat16)
#define TFD_INT_TYPES(M) \
  M(int32_t) M(int64_t) M(uint8_t) M(int8_t) M(int16_t) M(uint16_t) M(uint32_t) M(uint64_t)
#define TFD_NUMBER_TYPES(M) TFD_FLOAT_TYPES(M) TFD_INT_TYPES(M)
#define TFD_POD_TYPES(M) TFD_NUMBER_TYPES(M) M(bool)

#endif  // TFD_CORE_FRAMEWORK_TYPES_H_
