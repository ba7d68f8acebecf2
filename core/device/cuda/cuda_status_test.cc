// Tests of the CUDA status macros. The libraries' error strings are host
// functions, so these run on every CUDA build, GPU or not.
#include "core/device/cuda/cuda_status.h"

#include <string>

#include "gtest/gtest.h"

namespace tfd {
namespace {

bool Contains(const absl::Status& s, const std::string& part) {
  return std::string(s.message()).find(part) != std::string::npos;
}

TEST(CudaStatusTest, SuccessIsOkForEveryLibrary) {
  EXPECT_TRUE(TFD_CUDA_STATUS(cudaSuccess).ok());
  EXPECT_TRUE(TFD_CUBLAS_STATUS(CUBLAS_STATUS_SUCCESS).ok());
  EXPECT_TRUE(TFD_CUDNN_STATUS(CUDNN_STATUS_SUCCESS).ok());
  EXPECT_TRUE(TFD_NCCL_STATUS(ncclSuccess).ok());
}

TEST(CudaStatusTest, ExpressionIsEvaluatedOnce) {
  int calls = 0;
  auto fail = [&calls] {
    ++calls;
    return cudaErrorInvalidValue;
  };
  absl::Status s = TFD_CUDA_STATUS(fail());
  EXPECT_FALSE(s.ok());
  EXPECT_EQ(calls, 1);
}

TEST(CudaStatusTest, RuntimeErrorNamesLibraryCallPlaceAndText) {
  const absl::Status s = TFD_CUDA_STATUS(cudaErrorMemoryAllocation);
  EXPECT_EQ(s.code(), absl::StatusCode::kResourceExhausted);
  EXPECT_TRUE(Contains(s, "CUDA runtime: cudaErrorMemoryAllocation failed at ")) << s;
  EXPECT_TRUE(Contains(s, "core/device/cuda/cuda_status_test.cc:")) << s;
  EXPECT_TRUE(Contains(s, "cudaErrorMemoryAllocation (2): ")) << s;
  EXPECT_TRUE(Contains(s, cudaGetErrorString(cudaErrorMemoryAllocation))) << s;
}

TEST(CudaStatusTest, RuntimeCodesMapToAbslCodes) {
  EXPECT_EQ(TFD_CUDA_STATUS(cudaErrorInvalidValue).code(), absl::StatusCode::kInvalidArgument);
  EXPECT_EQ(TFD_CUDA_STATUS(cudaErrorNoDevice).code(), absl::StatusCode::kFailedPrecondition);
  EXPECT_EQ(TFD_CUDA_STATUS(cudaErrorLaunchFailure).code(), absl::StatusCode::kInternal);
}

TEST(CudaStatusTest, RealCallWithoutDeviceFailsCleanlyAndClearsLastError) {
  int count = -1;
  const absl::Status s = TFD_CUDA_STATUS(cudaGetDeviceCount(&count));
  if (s.ok()) {
    EXPECT_GE(count, 1);
  } else {
    // No GPU, or no driver at all: both say the machine cannot run CUDA.
    EXPECT_EQ(s.code(), absl::StatusCode::kFailedPrecondition) << s;
    EXPECT_TRUE(Contains(s, "cudaGetDeviceCount(&count)")) << s;
  }
  // The macro consumed the error, so the next launch check starts clean;
  // except that a runtime which found no driver keeps failing every call
  // with that error, which no one can clear.
  const cudaError_t last = cudaGetLastError();
  if (last != cudaErrorInsufficientDriver) {
    EXPECT_EQ(last, cudaSuccess);
  }
}

TEST(CudaStatusTest, CublasErrorUsesCublasNames) {
  const absl::Status s = TFD_CUBLAS_STATUS(CUBLAS_STATUS_INVALID_VALUE);
  EXPECT_EQ(s.code(), absl::StatusCode::kInvalidArgument);
  EXPECT_TRUE(Contains(s, "cuBLAS: CUBLAS_STATUS_INVALID_VALUE failed at ")) << s;
  EXPECT_TRUE(Contains(s, cublasGetStatusString(CUBLAS_STATUS_INVALID_VALUE))) << s;
  EXPECT_EQ(TFD_CUBLAS_STATUS(CUBLAS_STATUS_ALLOC_FAILED).code(),
            absl::StatusCode::kResourceExhausted);
  EXPECT_EQ(TFD_CUBLAS_STATUS(CUBLAS_STATUS_NOT_SUPPORTED).code(),
            absl::StatusCode::kUnimplemented);
  EXPECT_EQ(TFD_CUBLAS_STATUS(CUBLAS_STATUS_EXECUTION_FAILED).code(),
            absl::StatusCode::kInternal);
}

TEST(CudaStatusTest, CudnnErrorMapsByCategory) {
  const absl::Status s = TFD_CUDNN_STATUS(CUDNN_STATUS_BAD_PARAM_NULL_POINTER);
  EXPECT_EQ(s.code(), absl::StatusCode::kInvalidArgument);
  EXPECT_TRUE(Contains(s, "cuDNN: CUDNN_STATUS_BAD_PARAM_NULL_POINTER failed at ")) << s;
  EXPECT_TRUE(Contains(s, cudnnGetErrorString(CUDNN_STATUS_BAD_PARAM_NULL_POINTER))) << s;
  EXPECT_EQ(TFD_CUDNN_STATUS(CUDNN_STATUS_NOT_SUPPORTED).code(),
            absl::StatusCode::kUnimplemented);
  EXPECT_EQ(TFD_CUDNN_STATUS(CUDNN_STATUS_EXECUTION_FAILED).code(),
            absl::StatusCode::kInternal);
}

TEST(CudaStatusTest, NcclErrorNamesTheResult) {
  const absl::Status s = TFD_NCCL_STATUS(ncclInvalidUsage);
  EXPECT_EQ(s.code(), absl::StatusCode::kInvalidArgument);
  EXPECT_TRUE(Contains(s, "NCCL: ncclInvalidUsage failed at ")) << s;
  EXPECT_TRUE(Contains(s, "ncclInvalidUsage (5): ")) << s;
  EXPECT_TRUE(Contains(s, ncclGetErrorString(ncclInvalidUsage))) << s;
  EXPECT_EQ(TFD_NCCL_STATUS(ncclRemoteError).code(), absl::StatusCode::kUnavailable);
}

}  // namespace
}  // namespace tfd
