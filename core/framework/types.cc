#include "core/framework/types.h"

namespace tfd {

size_t DataTypeSize(DataType dtype) {
  switch (dtype) {
    case DT_FLOAT: return 4;
    case DT_DOUBLE: return 8;
    case DT_INT32: return 4;
    case DT_UINT8: return 1;
    case DT_INT16: return 2;
    case DT_INT8: return 1;
    case DT_INT64: return 8;
    case DT_BOOL: return 1;
    case DT_BFLOAT16: return 2;
    case DT_UINT16: return 2;
    case DT_HALF: return 2;
    case DT_UINT32: return 4;
    case DT_UINT64: return 8;
    case DT_COMPLEX64: return 8;
    case DT_COMPLEX128: return 16;
    default: return 0;
  }
}

namespace {
struct NamedType {
  DataType dtype;
  const char* name;
};
constexpr NamedType kNames[] = {
    {DT_FLOAT, "float32"},     {DT_DOUBLE, "float64"},   {DT_INT32, "int32"},
    {DT_UINT8, "uint8"},       {DT_INT16, "int16"},      {DT_INT8, "int8"},
    {DT_STRING, "string"},     {DT_COMPLEX64, "complex64"},
    {DT_INT64, "int64"},       {DT_BOOL, "bool"},        {DT_QINT8, "qint8"},
    {DT_QUINT8, "quint8"},     {DT_QINT32, "qint32"},    {DT_BFLOAT16, "bfloat16"},
    {DT_QINT16, "qint16"},     {DT_QUINT16, "quint16"},  {DT_UINT16, "uint16"},
    {DT_COMPLEX128, "complex128"}, {DT_HALF, "float16"}, {DT_RESOURCE, "resource"},
    {DT_VARIANT, "variant"},   {DT_UINT32, "uint32"},    {DT_UINT64, "uint64"},
};
}  // namespace

std::string DataTypeName(DataType dtype) {
  for (const NamedType& t : kNames) {
    if (t.dtype == dtype) return t.name;
  }
  return "invalid(" + std::to_string(static_cast<int>(dtype)) + ")";
}

bool DataTypeFromName(absl::string_view name, DataType* dtype) {
  if (name == "float") name = "float32";
  if (name == "double") name = "float64";
  if (name == "half") name = "float16";
  for (const NamedType& t : kNames) {
    if (name == t.name) {
      *dtype = t.dtype;
      return true;
    }
  }
  return false;
}

bool IsFloatingType(DataType dtype) {
  return dtype == DT_FLOAT || dtype == DT_DOUBLE || dtype == DT_HALF ||
         dtype == DT_BFLOAT16;
}

bool IsIntegerType(DataType dtype) {
  switch (dtype) {
    case DT_INT8: case DT_INT16: case DT_INT32: case DT_INT64:
    case DT_UINT8: case DT_UINT16: case DT_UINT32: case DT_UINT64:
      return true;
    default:
      return false;
  }
}

bool IsHostOnlyType(DataType dtype) {
  return dtype == DT_STRING || dtype == DT_RESOURCE || dtype == DT_VARIANT;
}

}  // namespace tfd
