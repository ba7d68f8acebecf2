// Launchers of the row-wise softmax and cross-entropy CUDA kernels
// (softmax.cu), callable from host C++ (softmax_kernels.cc registers
// Softmax, LogSoftmax, SoftmaxCrossEntropyWithLogits and
// SparseSoftmaxCrossEntropyWithLogits).
//
// Every op works on [rows, classes] with the CPU kernels' formulas: with
// m = max(x) and s = sum(exp(x - m)) per row,
//   softmax     = exp(x - m) * (1 / s)
//   log_softmax = (x - m) - log(s)
//   loss        = sum_c labels_c * (log(s) - (x_c - m))
//   backprop    = exp(x - m) / s - labels
// in float (double for double), rounded once. T is float, double,
// tfd::half or tfd::bfloat16; Index is int32_t or int64_t. A sparse label
// outside [0, classes) makes its row's loss and backprop NaN, as
// TensorFlow's GPU kernel does (its CPU kernel, and tfd's, report an
// error; checking on the host would cost a device synchronization each
// step). rows == 0 launches nothing. Each returns the launch's error.
#ifndef TFD_CORE_KERNELS_CUDA_SOFTMAX_H_
#define TFD_CORE_KERNELS_CUDA_SOFTMAX_H_

#include <cuda_runtime_api.h>

#include <cstdint>

namespace tfd {
namespace cuda_kernels {

template <typename T>
cudaError_t LaunchSoftmax(const T* logits, T* out, int64_t rows, int64_t classes, bool log,
                          cudaStream_t stream);

template <typename T>
cudaError_t LaunchSoftmaxXent(const T* features, const T* labels, T* loss, T* backprop,
                              int64_t rows, int64_t classes, cudaStream_t stream);

template <typename T, typename Index>
cudaError_t LaunchSparseSoftmaxXent(const T* features, const Index* labels, T* loss,
                                    T* backprop, int64_t rows, int64_t classes,
                                    cudaStream_t stream);

}  // namespace cuda_kernels
}  // namespace tfd

#endif  // TFD_CORE_KERNELS_CUDA_SOFTMAX_H_
