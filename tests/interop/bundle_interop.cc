// The C++ half of the TensorBundle interop check with TensorFlow
// (bundle_test.py):
//   bundle_interop write PREFIX    writes the sample bundle
//   bundle_interop verify PREFIX   reads a bundle (e.g. one TensorFlow wrote
//                                  with the same tensors) and checks every
//                                  value; exit status 1 on any mismatch
//   bundle_interop write-many PREFIX N
//                                  N float32[2] tensors {i, -i} under long
//                                  keys, enough to need several index blocks
// The sample's contents follow simple formulas that the Python side
// recomputes with NumPy; the tensors are added in kOrder, which the Python
// side passes to SaveV2 so that TensorFlow's files can be compared byte for
// byte.
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <vector>

#include "savedmodel/bundle/tensor_bundle.h"

namespace tfd {
namespace {

struct Spec {
  const char* key;
  DataType dtype;
  std::vector<int64_t> dims;
};

// Not sorted on purpose: the data file follows this order, the index does not.
const Spec kOrder[] = {
    {"zz/float32", DT_FLOAT, {2, 3}},     {"float64", DT_DOUBLE, {4}},
    {"int32", DT_INT32, {2, 3}},          {"uint8", DT_UINT8, {5}},
    {"int16", DT_INT16, {3}},             {"int8", DT_INT8, {2, 2}},
    {"int64/scalar", DT_INT64, {}},       {"int64", DT_INT64, {3}},
    {"bool", DT_BOOL, {5}},               {"bfloat16", DT_BFLOAT16, {4}},
    {"uint16", DT_UINT16, {3}},           {"half", DT_HALF, {2, 2}},
    {"uint32", DT_UINT32, {3}},           {"uint64", DT_UINT64, {2}},
    {"empty/float32", DT_FLOAT, {0, 4}},  {"strings", DT_STRING, {4}},
    {"_CHECKPOINTABLE_OBJECT_GRAPH", DT_STRING, {}},
};

// Element i of each sample tensor (the Python side mirrors these).
double Value(DataType dtype, int64_t i) {
  switch (dtype) {
    case DT_FLOAT: case DT_DOUBLE: case DT_HALF: case DT_BFLOAT16: return 0.5 * i - 1.0;
    case DT_INT8: case DT_INT16: case DT_INT32: case DT_INT64: return (i % 7) - 3;
    case DT_BOOL: return i % 2;
    default: return 3 * i + 1;  // Unsigned.
  }
}

std::string StringValue(const std::string& key, int64_t i) {
  if (key == "_CHECKPOINTABLE_OBJECT_GRAPH") return "graph-bytes";
  switch (i) {
    case 0: return "";
    case 1: return "abc";
    case 2: return std::string(1000, 'x');
    default: return std::string("\0\xff", 2);
  }
}

template <typename T>
void Fill(Tensor* t) {
  for (int64_t i = 0; i < t->NumElements(); ++i) {
    t->data<T>()[i] = static_cast<T>(Value(t->dtype(), i));
  }
}
template <>
void Fill<half>(Tensor* t) {
  for (int64_t i = 0; i < t->NumElements(); ++i) t->data<half>()[i] = half(Value(DT_HALF, i));
}
template <>
void Fill<bfloat16>(Tensor* t) {
  for (int64_t i = 0; i < t->NumElements(); ++i) {
    t->data<bfloat16>()[i] = bfloat16(Value(DT_BFLOAT16, i));
  }
}

Tensor Make(const Spec& s) {
  Tensor t(s.dtype, TensorShape(s.dims));
  switch (s.dtype) {
#define TFD_FILL(T) \
  case DataTypeToEnum<T>::value: Fill<T>(&t); break;
    TFD_POD_TYPES(TFD_FILL)
#undef TFD_FILL
    case DT_STRING:
      for (int64_t i = 0; i < t.NumElements(); ++i) {
        t.data<std::string>()[i] = StringValue(s.key, i);
      }
      break;
    default: break;
  }
  return t;
}

int Write(const std::string& prefix) {
  auto writer = savedmodel::BundleWriter::Create(prefix);
  absl::Status s = writer.status();
  for (const Spec& spec : kOrder) {
    if (s.ok()) s = (*writer)->Add(spec.key, Make(spec));
  }
  if (s.ok()) s = (*writer)->Finish();
  if (!s.ok()) {
    std::fprintf(stderr, "write failed: %s\n", s.ToString().c_str());
    return 1;
  }
  return 0;
}

int Verify(const std::string& prefix) {
  auto reader = savedmodel::BundleReader::Open(prefix);
  if (!reader.ok()) {
    std::fprintf(stderr, "open failed: %s\n", reader.status().ToString().c_str());
    return 1;
  }
  int bad = 0;
  for (const Spec& spec : kOrder) {
    const Tensor want = Make(spec);
    auto got = (*reader)->Lookup(spec.key);
    bool same = got.ok() && got->dtype() == want.dtype() && got->shape() == want.shape();
    if (same && want.dtype() == DT_STRING) {
      for (int64_t i = 0; i < want.NumElements(); ++i) {
        same = same && got->data<std::string>()[i] == want.data<std::string>()[i];
      }
    } else if (same) {
      same = std::memcmp(got->raw_data(), want.raw_data(), want.TotalBytes()) == 0;
    }
    std::printf("%-32s %s\n", spec.key,
                same ? "ok" : (got.ok() ? "MISMATCH" : got.status().ToString().c_str()));
    bad += same ? 0 : 1;
  }
  const size_t listed = (*reader)->Keys().size();
  std::printf("%zu keys listed, %d mismatches\n", listed, bad);
  return bad == 0 && listed == sizeof(kOrder) / sizeof(kOrder[0]) ? 0 : 1;
}

int WriteMany(const std::string& prefix, int n) {
  auto writer = savedmodel::BundleWriter::Create(prefix);
  absl::Status s = writer.status();
  for (int i = 0; i < n && s.ok(); ++i) {
    Tensor t(DT_FLOAT, {2});
    t.data<float>()[0] = static_cast<float>(i);
    t.data<float>()[1] = -static_cast<float>(i);
    s = (*writer)->Add(
        "model/layer_with_weights-" + std::to_string(i) + "/kernel/.ATTRIBUTES/VARIABLE_VALUE", t);
  }
  if (s.ok()) s = (*writer)->Finish();
  if (!s.ok()) std::fprintf(stderr, "write failed: %s\n", s.ToString().c_str());
  return s.ok() ? 0 : 1;
}

}  // namespace
}  // namespace tfd

int main(int argc, char** argv) {
  if (argc == 3 && std::string(argv[1]) == "write") return tfd::Write(argv[2]);
  if (argc == 3 && std::string(argv[1]) == "verify") return tfd::Verify(argv[2]);
  if (argc == 4 && std::string(argv[1]) == "write-many") {
    return tfd::WriteMany(argv[2], std::atoi(argv[3]));
  }
  std::fprintf(stderr, "usage: %s write|verify PREFIX | write-many PREFIX N\n", argv[0]);
  return 2;
}
