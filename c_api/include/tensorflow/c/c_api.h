/* tfd's TensorFlow-compatible C API. Programs written against TensorFlow's
 * tensorflow/c/c_api.h for the functions declared here compile and run
 * unchanged against libtfd. tfd's own training API is in tfd/c_api.h. */
#ifndef TFD_C_API_TENSORFLOW_C_C_API_H_
#define TFD_C_API_TENSORFLOW_C_C_API_H_

#include "tensorflow/c/tf_buffer.h"
#include "tensorflow/c/tf_datatype.h"
#include "tensorflow/c/tf_status.h"
#include "tensorflow/c/tf_tensor.h"

#ifdef __cplusplus
extern "C" {
#endif

/* The TensorFlow C API version this library implements, with tfd's own
 * version as semver build metadata: "2.21.0+tfd.0.2.0". */
TF_CAPI_EXPORT extern const char* TF_Version(void);

#ifdef __cplusplus
} /* extern "C" */
#endif

#endif /* TFD_C_API_TENSORFLOW_C_C_API_H_ */
