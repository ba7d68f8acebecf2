#include "core/framework/fake_gpu_kernels.h"

#include <set>
#include <string>
#include <utility>
#include <vector>

#include "absl/strings/ascii.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_split.h"
#include "core/framework/op_def.h"
#include "core/framework/status.h"

namespace tfd {
namespace test {
namespace {

constexpr char kAnyDtype[] = "*";

// The dtype a call's kernel is looked up by, as Execute does it.
absl::StatusOr<DataType> KernelDtype(const KernelContext& ctx) {
  TFD_ASSIGN_OR_RETURN(const OpDef* op, LookupOpDef(ctx.op_name()));
  if (op->kernel_type_attr.empty()) return DT_INVALID;
  return ctx.attrs().Get<DataType>(op->kernel_type_attr);
}

// Runs the CPU kernel in the GPU kernel's context: its outputs are
// allocated on the fake GPU (host memory), and its inputs are there too
// (Execute moved them), so it reads them as a GPU kernel would.
absl::Status RunCpuKernel(KernelContext& ctx) {
  TFD_ASSIGN_OR_RETURN(DataType dtype, KernelDtype(ctx));
  TFD_ASSIGN_OR_RETURN(const KernelFn* cpu, LookupKernel(ctx.op_name(), DeviceType::kCPU, dtype));
  return (*cpu)(ctx);
}

// Shape, Size and Rank as the real GPU kernels give them
// (core/kernels/cuda/array_kernels.cc): in host memory, where TensorFlow
// keeps a shape op's output on a GPU, so that the ops reading a shape on
// the host take it without a device copy.
absl::Status HostIndexOutput(KernelContext& ctx) {
  const Tensor& x = ctx.input(0);
  std::vector<int64_t> values;
  if (ctx.op_name() == "Shape") {
    values = x.shape().dims();
  } else {
    values = {ctx.op_name() == "Size" ? x.NumElements() : x.rank()};
  }
  Tensor host(ctx.output_dtype(0), ctx.output_shape(0));
  for (size_t k = 0; k < values.size(); ++k) {
    if (host.dtype() == DT_INT64) {
      host.data<int64_t>()[k] = values[k];
    } else {
      host.data<int32_t>()[k] = static_cast<int32_t>(values[k]);
    }
  }
  return ctx.SetOutput(0, std::move(host));
}

bool HasHostOutputOnGpu(const std::string& op) {
  return op == "Shape" || op == "Size" || op == "Rank";
}

}  // namespace

absl::StatusOr<std::vector<KernelRegistration>> ParseGpuKernelList(absl::string_view text) {
  std::vector<KernelRegistration> out;
  int line_number = 0;
  for (absl::string_view line : absl::StrSplit(text, '\n')) {
    ++line_number;
    line = absl::StripAsciiWhitespace(line);
    if (line.empty() || line[0] == '#') continue;
    std::vector<absl::string_view> fields = absl::StrSplit(line, ' ', absl::SkipEmpty());
    if (fields.size() != 2) {
      return InvalidArgument("GPU kernel list, line ", line_number,
                             ": expected \"op dtype\", got \"", line, "\"");
    }
    DataType dtype = DT_INVALID;
    if (fields[1] != kAnyDtype && !DataTypeFromName(fields[1], &dtype)) {
      return InvalidArgument("GPU kernel list, line ", line_number, ": unknown dtype \"",
                             fields[1], "\"");
    }
    out.push_back({std::string(fields[0]), DeviceType::kGPU, dtype});
  }
  return out;
}

std::string FormatGpuKernelList(const std::vector<KernelRegistration>& kernels) {
  std::set<std::string> lines;
  for (const KernelRegistration& k : kernels) {
    if (k.device != DeviceType::kGPU) continue;
    lines.insert(absl::StrCat(k.op, " ",
                              k.dtype == DT_INVALID ? kAnyDtype : DataTypeName(k.dtype)));
  }
  std::string out;
  for (const std::string& line : lines) absl::StrAppend(&out, line, "\n");
  return out;
}

absl::StatusOr<int> RegisterFakeGpuKernels(absl::string_view list_text) {
  TFD_ASSIGN_OR_RETURN(std::vector<KernelRegistration> listed, ParseGpuKernelList(list_text));
  std::set<std::pair<std::string, DataType>> present;
  for (const KernelRegistration& k : RegisteredKernels()) {
    if (k.device == DeviceType::kGPU) present.emplace(k.op, k.dtype);
  }
  int registered = 0;
  for (const KernelRegistration& k : listed) {
    // GPU-only ops (TfdMultiTensorApply*) have no CPU kernel to stand in:
    // without them the fake GPU is a GPU build lacking those kernels, and
    // their callers take their other path (which a GPU run then still
    // has to cover).
    if (!HasKernel(k.op, DeviceType::kCPU)) continue;
    if (k.dtype != DT_INVALID && !LookupKernel(k.op, DeviceType::kCPU, k.dtype).ok()) continue;
    if (!present.emplace(k.op, k.dtype).second) continue;
    // The registrar's work is done in its constructor; the registry keeps
    // the kernel for the process.
    KernelRegistrar(k.op.c_str(), DeviceType::kGPU, k.dtype,
                    HasHostOutputOnGpu(k.op) ? HostIndexOutput : RunCpuKernel);
    ++registered;
  }
  return registered;
}

}  // namespace test
}  // namespace tfd
