// GPU kernels of Conv2D, Conv2DBackpropInput and Conv2DBackpropFilter on
// cuDNN for float, double, half and bfloat16, NHWC and NCHW. The geometry
// is TensorFlow's (core/kernels/conv_geometry.h), mapped onto cuDNN by
// MakeCudnnConvPlan (filter layout, asymmetric padding).
//
// Algorithms are autotuned, as TensorFlow does (cudnn_conv_autotune.h):
// the first call of a signature times cuDNN's candidates with
// cudnnFind*AlgorithmEx and caches the fastest; later calls run it. With
// TF_CUDNN_USE_AUTOTUNE=0, or when a tuning fails or its algorithm cannot
// run, a call takes cuDNN's first heuristic algorithm that fits. Either way
// the workspace comes from the device's caching allocator.
//
// Under op determinism (core/framework/determinism.h) both the timing and
// the heuristic path take only algorithms cuDNN reports as
// CUDNN_DETERMINISTIC (atomics make the others, such as backward-filter
// algorithms 0 and 3, add in a different order each run), and the tuned
// choice is cached under a key that says so. A shape with no deterministic
// algorithm fails with UNIMPLEMENTED, as TensorFlow does.
#include <algorithm>
#include <cstdio>
#include <string>

#include "absl/strings/str_cat.h"
#include "core/device/cuda/cuda_device.h"
#include "core/device/cuda/cuda_status.h"
#include "core/framework/determinism.h"
#include "core/framework/kernel.h"
#include "core/framework/status.h"
#include "core/kernels/conv_geometry.h"
#include "core/kernels/cuda/cudnn_conv_autotune.h"
#include "core/kernels/cuda/cudnn_conv_plan.h"
#include "core/kernels/cuda/cudnn_util.h"
#include "core/kernels/cuda/strided_copy.h"

namespace tfd {
namespace {

using cuda_kernels::ConvAlgoChoice;
using cuda_kernels::ConvAlgoKey;
using cuda_kernels::ConvolutionDescriptor;
using cuda_kernels::ConvPass;
using cuda_kernels::CudnnConvPlan;
using cuda_kernels::FilterDescriptor;
using cuda_kernels::PadCopy;
using cuda_kernels::Scaling;
using cuda_kernels::TensorDescriptor;

constexpr int kMaxAlgorithms = 16;

// Everything one convolution call needs, built from the plan.
struct ConvCall {
  DataType dtype;
  CudnnConvPlan plan;
  TensorDescriptor x, y;
  FilterDescriptor w;
  ConvolutionDescriptor conv;
};

absl::Status Prepare(DataType dtype, const Conv2DGeometry& g, ConvCall* call) {
  call->dtype = dtype;
  TFD_ASSIGN_OR_RETURN(call->plan, cuda_kernels::MakeCudnnConvPlan(g));
  TFD_RETURN_IF_ERROR(call->x.Create(dtype, call->plan.input));
  TFD_RETURN_IF_ERROR(call->y.Create(dtype, call->plan.output));
  TFD_RETURN_IF_ERROR(call->w.Create(dtype, call->plan.filter_packed, call->plan.filter_nhwc));
  return call->conv.Create(dtype, call->plan);
}

absl::StatusOr<Tensor> Scratch(DataType dtype, int64_t elements, CudaDevice* gpu) {
  return Tensor::Allocate(dtype, TensorShape({elements}), gpu);
}

// The 3-D copy between a dense tensor and its padded buffer, either way.
absl::Status CopyPadded(const PadCopy& c, size_t elem, const void* src, void* dst, bool to_padded,
                        CudaDevice* gpu) {
  cudaMemcpy3DParms p = {};
  const size_t row_bytes = c.row_elements * elem;
  cudaPitchedPtr dense = make_cudaPitchedPtr(const_cast<void*>(to_padded ? src : dst), row_bytes,
                                             row_bytes, c.rows);
  char* padded_base = static_cast<char*>(to_padded ? dst : const_cast<void*>(src));
  cudaPitchedPtr padded = make_cudaPitchedPtr(padded_base + c.dst_offset * elem,
                                              c.dst_row_pitch * elem, row_bytes, c.dst_slice_rows);
  p.srcPtr = to_padded ? dense : padded;
  p.dstPtr = to_padded ? padded : dense;
  p.extent = make_cudaExtent(row_bytes, c.rows, c.slices);
  p.kind = cudaMemcpyDeviceToDevice;
  return TFD_CUDA_STATUS(cudaMemcpy3DAsync(&p, gpu->stream()));
}

// The input as cuDNN reads it: the tensor itself or its zero-padded copy.
absl::StatusOr<Tensor> PaddedInput(const ConvCall& call, const Tensor& input, CudaDevice* gpu) {
  if (!call.plan.pad_input) return input;
  TFD_ASSIGN_OR_RETURN(Tensor padded, Scratch(call.dtype, call.plan.pad_copy.dst_elements, gpu));
  TFD_RETURN_IF_ERROR(gpu->Memset(padded.raw_data(), 0, padded.TotalBytes()));
  TFD_RETURN_IF_ERROR(CopyPadded(call.plan.pad_copy, DataTypeSize(call.dtype), input.raw_data(),
                                 padded.raw_data(), /*to_padded=*/true, gpu));
  return padded;
}

// The filter packed for cuDNN (from HWIO), or back: one strided copy
// (strided_copy.cu) between the plan's two views of [K, C, R, S]. It moves
// bytes, so every dtype is handled alike, whatever types
// cudnnTransformTensor (used before) accepts.
absl::Status TransformFilter(CudaDevice* gpu, const ConvCall& call, const void* src, void* dst,
                             bool to_packed) {
  TFD_ASSIGN_OR_RETURN(cuda_kernels::StridedCopyParams copy,
                       cuda_kernels::FilterCopyParams(call.plan, to_packed));
  TFD_RETURN_IF_ERROR(gpu->Activate());
  return TFD_CUDA_STATUS(cuda_kernels::LaunchStridedCopy(
      static_cast<int>(DataTypeSize(call.dtype)), copy, src, dst, gpu->stream()));
}

// Whether `p` may run: every algorithm may, unless op determinism is on and
// cuDNN says `p` is not deterministic.
template <typename Perf>
bool Allowed(const Perf& p, bool deterministic) {
  return !deterministic || p.determinism == CUDNN_DETERMINISTIC;
}

// Gets cuDNN's ranking of algorithms from `rank(perf, &returned)` and runs
// `run(algo, workspace)` with the first usable one and the workspace it
// asks for, from the device's caching allocator. An algorithm whose
// workspace does not fit in the memory left, or that cuDNN refuses to run
// after all (NOT_SUPPORTED: the heuristics rank algorithms without trying
// them), gives way to the next; the last such error is returned when none
// runs. With `deterministic`, only deterministic algorithms are tried.
template <typename Perf, typename RankFn, typename RunFn>
absl::Status RunFirstUsable(CudaDevice* gpu, const char* what, bool deterministic, RankFn rank,
                            RunFn run) {
  Perf perf[kMaxAlgorithms];
  int returned = 0;
  TFD_RETURN_IF_ERROR(rank(perf, &returned));
  absl::Status last = absl::InternalError(
      absl::StrCat("cuDNN offers no ", what, " algorithm for this shape"));
  if (deterministic) {
    last = absl::UnimplementedError(absl::StrCat(
        "cuDNN offers no deterministic ", what,
        " algorithm for this shape, and op determinism is on (TF_DETERMINISTIC_OPS or "
        "EnableOpDeterminism)"));
  }
  for (int i = 0; i < returned; ++i) {
    if (perf[i].status != CUDNN_STATUS_SUCCESS || !Allowed(perf[i], deterministic)) continue;
    absl::StatusOr<Tensor> ws =
        Scratch(DT_UINT8, std::max<int64_t>(static_cast<int64_t>(perf[i].memory), 1), gpu);
    if (!ws.ok()) {
      if (!absl::IsResourceExhausted(ws.status())) return ws.status();
      last = ws.status();
      continue;
    }
    absl::Status ran = run(perf[i], ws->raw_data());
    if (!absl::IsUnimplemented(ran)) return ran;
    last = ran;
  }
  return last;
}

// Whether `dtype` keeps the math type ConvolutionDescriptor::Create gave
// it whatever an algorithm was timed with: float stays on FMA, so no TF32
// rounding creeps in; double has only the default.
bool KeepsDescriptorMath(DataType dtype) { return dtype == DT_FLOAT || dtype == DT_DOUBLE; }

bool UsesTensorCores(cudnnMathType_t math) {
  return math == CUDNN_TENSOR_OP_MATH || math == CUDNN_TENSOR_OP_MATH_ALLOW_CONVERSION;
}

// The workspace the candidates are timed with: the most any of cuDNN's
// ranked algorithms asks for, within TF_CUDNN_WORKSPACE_LIMIT_IN_MB, halved
// while the allocator cannot serve it (an algorithm that needs more is then
// left out of the timing).
template <typename Perf>
absl::StatusOr<Tensor> TuningWorkspace(CudaDevice* gpu, const Perf* ranked, int count,
                                       int64_t* bytes) {
  int64_t want = 0;
  for (int i = 0; i < count; ++i) {
    if (ranked[i].status == CUDNN_STATUS_SUCCESS) {
      want = std::max(want, static_cast<int64_t>(ranked[i].memory));
    }
  }
  want = std::min(want, cuda_kernels::ConvWorkspaceLimitBytes());
  while (true) {
    absl::StatusOr<Tensor> ws = Scratch(DT_UINT8, std::max<int64_t>(want, 1), gpu);
    if (ws.ok() || !absl::IsResourceExhausted(ws.status()) || want == 0) {
      *bytes = want;
      return ws;
    }
    want /= 2;
  }
}

// Times the candidates: `rank(perf, &returned)` is cuDNN's heuristic list
// (for the workspace size), `find(perf, &returned, ws, bytes)` its
// cudnnFind*AlgorithmEx on the call's own buffers, which writes the output
// buffer; the call then runs the winner, writing it again with beta = 0,
// so nothing the timing left there survives. The fastest that succeeded
// within the workspace, in a math type `dtype` allows (and deterministic,
// with `deterministic`), wins.
template <typename Perf, typename RankFn, typename FindFn>
absl::StatusOr<ConvAlgoChoice> TimeAlgorithms(CudaDevice* gpu, DataType dtype, bool deterministic,
                                              RankFn rank, FindFn find) {
  Perf perf[kMaxAlgorithms];
  int returned = 0;
  TFD_RETURN_IF_ERROR(rank(perf, &returned));
  int64_t bytes = 0;
  TFD_ASSIGN_OR_RETURN(Tensor ws, TuningWorkspace(gpu, perf, returned, &bytes));
  TFD_RETURN_IF_ERROR(find(perf, &returned, ws.raw_data(), static_cast<size_t>(bytes)));
  // cuDNN returns the timings fastest first.
  for (int i = 0; i < returned; ++i) {
    const Perf& p = perf[i];
    if (p.status != CUDNN_STATUS_SUCCESS || p.time < 0 ||
        static_cast<int64_t>(p.memory) > bytes) {
      continue;
    }
    if (KeepsDescriptorMath(dtype) && UsesTensorCores(p.mathType)) continue;
    if (!Allowed(p, deterministic)) continue;
    ConvAlgoChoice choice;
    choice.algo = static_cast<int>(p.algo);
    choice.math_type = static_cast<int>(p.mathType);
    choice.workspace_bytes = static_cast<int64_t>(p.memory);
    choice.time_ms = p.time;
    return choice;
  }
  return absl::NotFoundError(deterministic ? "cuDNN timed no usable deterministic algorithm"
                                           : "cuDNN timed no usable algorithm");
}

// Runs `run` with the tuned algorithm `c`, in its math type (16-bit types)
// and with its workspace.
template <typename Perf, typename RunFn>
absl::Status RunChoice(CudaDevice* gpu, ConvCall& call, const ConvAlgoChoice& c, RunFn run) {
  Perf p = {};
  p.algo = static_cast<decltype(p.algo)>(c.algo);
  p.status = CUDNN_STATUS_SUCCESS;
  p.memory = static_cast<size_t>(c.workspace_bytes);
  p.mathType = static_cast<cudnnMathType_t>(c.math_type);
  TFD_ASSIGN_OR_RETURN(Tensor ws, Scratch(DT_UINT8, std::max<int64_t>(c.workspace_bytes, 1), gpu));
  if (!KeepsDescriptorMath(call.dtype)) TFD_RETURN_IF_ERROR(call.conv.SetMathType(p.mathType));
  return run(p, ws.raw_data());
}

// One pass of the convolution `call` (see the file comment): the algorithm
// tuned for its signature, else the heuristic one. `rank`, `find` and `run`
// as for TimeAlgorithms and RunFirstUsable. The determinism switch is read
// once, so the key, the timing and the fallback agree.
template <typename Perf, typename RankFn, typename FindFn, typename RunFn>
absl::Status RunConvolution(CudaDevice* gpu, ConvCall& call, ConvPass pass, const char* what,
                            RankFn rank, FindFn find, RunFn run) {
  const bool deterministic = OpDeterminismEnabled();
  if (cuda_kernels::ConvAutotuneEnabled()) {
    const ConvAlgoKey key = cuda_kernels::MakeConvAlgoKey(gpu->ordinal(), call.dtype, pass,
                                                          call.plan, deterministic);
    absl::StatusOr<ConvAlgoChoice> choice =
        cuda_kernels::GlobalConvAlgoCache().GetOrTune(key, [&] {
          absl::StatusOr<ConvAlgoChoice> timed =
              TimeAlgorithms<Perf>(gpu, call.dtype, deterministic, rank, find);
          // Once per signature, since the failure is cached.
          if (!timed.ok()) {
            std::fprintf(stderr,
                         "cuDNN autotuning failed for %s; cuDNN's heuristic choice runs: %s\n",
                         key.DebugString().c_str(), std::string(timed.status().message()).c_str());
          }
          return timed;
        });
    if (choice.ok()) {
      absl::Status ran = RunChoice<Perf>(gpu, call, *choice, run);
      // A workspace the memory left cannot hold, or an algorithm refused
      // after all: the heuristic path may still run.
      if (!absl::IsResourceExhausted(ran) && !absl::IsUnimplemented(ran)) return ran;
      TFD_RETURN_IF_ERROR(call.conv.SetMathType(cuda_kernels::ConvolutionMathType(call.dtype)));
    }
  }
  return RunFirstUsable<Perf>(gpu, what, deterministic, rank, run);
}

absl::Status CheckGroups(const KernelContext& ctx, const Conv2DGeometry& g) {
  if (g.filter_depth <= 0 || g.in_depth % g.filter_depth != 0) {
    return ctx.Error("input depth ", g.in_depth, " is not a multiple of the filter depth ",
                     g.filter_depth);
  }
  return absl::OkStatus();
}

// input: 4-D, filter: [R, S, C/groups, K] -> output.
absl::Status Conv2DGpu(KernelContext& ctx) {
  const Tensor& input = ctx.input(0);
  const Tensor& filter = ctx.input(1);
  TFD_ASSIGN_OR_RETURN(Conv2DAttrs attrs, ParseConv2DAttrs(ctx.attrs()));
  TFD_ASSIGN_OR_RETURN(Conv2DGeometry g,
                       ComputeConv2DGeometry(attrs, input.shape(), filter.shape()));
  TFD_RETURN_IF_ERROR(CheckGroups(ctx, g));
  TFD_ASSIGN_OR_RETURN(Tensor * output, ctx.AllocateOutput(0));
  TFD_ASSIGN_OR_RETURN(CudaDevice * gpu, AsCudaDevice(ctx.device()));
  if (output->NumElements() == 0) return absl::OkStatus();
  if (input.NumElements() == 0 || filter.NumElements() == 0) {
    return gpu->Memset(output->raw_data(), 0, output->TotalBytes());
  }
  ConvCall call;
  TFD_RETURN_IF_ERROR(Prepare(input.dtype(), g, &call));
  TFD_ASSIGN_OR_RETURN(Tensor x, PaddedInput(call, input, gpu));
  TFD_ASSIGN_OR_RETURN(Tensor w, Scratch(call.dtype, filter.NumElements(), gpu));
  return cuda_kernels::WithCudnn(gpu, [&](cudnnHandle_t h) -> absl::Status {
    TFD_RETURN_IF_ERROR(TransformFilter(gpu, call, filter.raw_data(), w.raw_data(), true));
    using Perf = cudnnConvolutionFwdAlgoPerf_t;
    return RunConvolution<Perf>(
        gpu, call, ConvPass::kForward, "forward",
        [&](Perf* perf, int* returned) {
          return TFD_CUDNN_STATUS(cudnnGetConvolutionForwardAlgorithm_v7(
              h, call.x.get(), call.w.get(), call.conv.get(), call.y.get(), kMaxAlgorithms,
              returned, perf));
        },
        [&](Perf* perf, int* returned, void* ws, size_t bytes) {
          return TFD_CUDNN_STATUS(cudnnFindConvolutionForwardAlgorithmEx(
              h, call.x.get(), x.raw_data(), call.w.get(), w.raw_data(), call.conv.get(),
              call.y.get(), output->raw_data(), kMaxAlgorithms, returned, perf, ws, bytes));
        },
        [&](const Perf& algo, void* ws) {
          const Scaling s(call.dtype);
          return TFD_CUDNN_STATUS(cudnnConvolutionForward(
              h, s.one(), call.x.get(), x.raw_data(), call.w.get(), w.raw_data(),
              call.conv.get(), algo.algo, ws, algo.memory, s.zero(), call.y.get(),
              output->raw_data()));
        });
  });
}

// input_sizes: [4] (host), filter, out_backprop -> in_backprop.
absl::Status Conv2DBackpropInputGpu(KernelContext& ctx) {
  const Tensor& filter = ctx.input(1);
  const Tensor& dy = ctx.input(2);
  TFD_ASSIGN_OR_RETURN(Conv2DAttrs attrs, ParseConv2DAttrs(ctx.attrs()));
  TFD_ASSIGN_OR_RETURN(Conv2DGeometry g, ComputeConv2DBackpropGeometry(
                                             attrs, ctx.output_shape(0), filter.shape(),
                                             dy.shape()));
  TFD_RETURN_IF_ERROR(CheckGroups(ctx, g));
  TFD_ASSIGN_OR_RETURN(Tensor * dx, ctx.AllocateOutput(0));
  TFD_ASSIGN_OR_RETURN(CudaDevice * gpu, AsCudaDevice(ctx.device()));
  if (dx->NumElements() == 0) return absl::OkStatus();
  if (dy.NumElements() == 0 || filter.NumElements() == 0) {
    return gpu->Memset(dx->raw_data(), 0, dx->TotalBytes());
  }
  ConvCall call;
  TFD_RETURN_IF_ERROR(Prepare(dy.dtype(), g, &call));
  TFD_ASSIGN_OR_RETURN(Tensor w, Scratch(call.dtype, filter.NumElements(), gpu));
  // With explicit padding the gradient of the padded input is computed and
  // its interior copied out.
  Tensor dx_padded = *dx;
  if (call.plan.pad_input) {
    TFD_ASSIGN_OR_RETURN(dx_padded, Scratch(call.dtype, call.plan.pad_copy.dst_elements, gpu));
  }
  TFD_RETURN_IF_ERROR(cuda_kernels::WithCudnn(gpu, [&](cudnnHandle_t h) -> absl::Status {
    TFD_RETURN_IF_ERROR(TransformFilter(gpu, call, filter.raw_data(), w.raw_data(), true));
    using Perf = cudnnConvolutionBwdDataAlgoPerf_t;
    return RunConvolution<Perf>(
        gpu, call, ConvPass::kBackwardData, "backward-data",
        [&](Perf* perf, int* returned) {
          return TFD_CUDNN_STATUS(cudnnGetConvolutionBackwardDataAlgorithm_v7(
              h, call.w.get(), call.y.get(), call.conv.get(), call.x.get(), kMaxAlgorithms,
              returned, perf));
        },
        [&](Perf* perf, int* returned, void* ws, size_t bytes) {
          return TFD_CUDNN_STATUS(cudnnFindConvolutionBackwardDataAlgorithmEx(
              h, call.w.get(), w.raw_data(), call.y.get(), dy.raw_data(), call.conv.get(),
              call.x.get(), dx_padded.raw_data(), kMaxAlgorithms, returned, perf, ws, bytes));
        },
        [&](const Perf& algo, void* ws) {
          const Scaling s(call.dtype);
          return TFD_CUDNN_STATUS(cudnnConvolutionBackwardData(
              h, s.one(), call.w.get(), w.raw_data(), call.y.get(), dy.raw_data(),
              call.conv.get(), algo.algo, ws, algo.memory, s.zero(), call.x.get(),
              dx_padded.raw_data()));
        });
  }));
  if (!call.plan.pad_input) return absl::OkStatus();
  return CopyPadded(call.plan.pad_copy, DataTypeSize(call.dtype), dx_padded.raw_data(),
                    dx->raw_data(), /*to_padded=*/false, gpu);
}

// input, filter_sizes: [4] (host), out_backprop -> filter_backprop (HWIO).
absl::Status Conv2DBackpropFilterGpu(KernelContext& ctx) {
  const Tensor& input = ctx.input(0);
  const Tensor& dy = ctx.input(2);
  TFD_ASSIGN_OR_RETURN(Conv2DAttrs attrs, ParseConv2DAttrs(ctx.attrs()));
  TFD_ASSIGN_OR_RETURN(Conv2DGeometry g, ComputeConv2DBackpropGeometry(
                                             attrs, input.shape(), ctx.output_shape(0),
                                             dy.shape()));
  TFD_RETURN_IF_ERROR(CheckGroups(ctx, g));
  TFD_ASSIGN_OR_RETURN(Tensor * dw, ctx.AllocateOutput(0));
  TFD_ASSIGN_OR_RETURN(CudaDevice * gpu, AsCudaDevice(ctx.device()));
  if (dw->NumElements() == 0) return absl::OkStatus();
  if (input.NumElements() == 0 || dy.NumElements() == 0) {
    return gpu->Memset(dw->raw_data(), 0, dw->TotalBytes());
  }
  ConvCall call;
  TFD_RETURN_IF_ERROR(Prepare(input.dtype(), g, &call));
  TFD_ASSIGN_OR_RETURN(Tensor x, PaddedInput(call, input, gpu));
  TFD_ASSIGN_OR_RETURN(Tensor dw_packed, Scratch(call.dtype, dw->NumElements(), gpu));
  return cuda_kernels::WithCudnn(gpu, [&](cudnnHandle_t h) -> absl::Status {
    using Perf = cudnnConvolutionBwdFilterAlgoPerf_t;
    // The timing writes dw_packed, a scratch buffer the chosen algorithm
    // then overwrites (beta = 0): the filter gradient never accumulates.
    TFD_RETURN_IF_ERROR(RunConvolution<Perf>(
        gpu, call, ConvPass::kBackwardFilter, "backward-filter",
        [&](Perf* perf, int* returned) {
          return TFD_CUDNN_STATUS(cudnnGetConvolutionBackwardFilterAlgorithm_v7(
              h, call.x.get(), call.y.get(), call.conv.get(), call.w.get(), kMaxAlgorithms,
              returned, perf));
        },
        [&](Perf* perf, int* returned, void* ws, size_t bytes) {
          return TFD_CUDNN_STATUS(cudnnFindConvolutionBackwardFilterAlgorithmEx(
              h, call.x.get(), x.raw_data(), call.y.get(), dy.raw_data(), call.conv.get(),
              call.w.get(), dw_packed.raw_data(), kMaxAlgorithms, returned, perf, ws, bytes));
        },
        [&](const Perf& algo, void* ws) {
          const Scaling s(call.dtype);
          return TFD_CUDNN_STATUS(cudnnConvolutionBackwardFilter(
              h, s.one(), call.x.get(), x.raw_data(), call.y.get(), dy.raw_data(),
              call.conv.get(), algo.algo, ws, algo.memory, s.zero(), call.w.get(),
              dw_packed.raw_data()));
        }));
    return TransformFilter(gpu, call, dw_packed.raw_data(), dw->raw_data(), false);
  });
}

#define TFD_CONV_GPU(T)                                                                    \
  TFD_REGISTER_KERNEL("Conv2D", DeviceType::kGPU, DataTypeToEnum<T>::value, Conv2DGpu);    \
  TFD_REGISTER_KERNEL("Conv2DBackpropInput", DeviceType::kGPU, DataTypeToEnum<T>::value,   \
                      Conv2DBackpropInputGpu);                                             \
  TFD_REGISTER_KERNEL("Conv2DBackpropFilter", DeviceType::kGPU, DataTypeToEnum<T>::value,  \
                      Conv2DBackpropFilterGpu);
TFD_CONV_GPU(float)
TFD_CONV_GPU(double)
TFD_CONV_GPU(half)
TFD_CONV_GPU(bfloat16)
#undef TFD_CONV_GPU

}  // namespace
}  // namespace tfd
