/* tfd's own C API (TFD_ prefix): versioning today; training (models,
 * datasets, strategies, fit, checkpoints, export) is added here, only ever
 * additively within a major version. */
#ifndef TFD_C_API_TFD_C_API_H_
#define TFD_C_API_TFD_C_API_H_

#include "tensorflow/c/c_api.h"

#ifdef __cplusplus
extern "C" {
#endif

/* The API version this header describes, as major * 10000 + minor * 100 +
 * patch. Compare with TFD_Version() at run time. */
#define TFD_API_VERSION 100

/* The library's semantic version, "0.1.0". */
TF_CAPI_EXPORT extern const char* TFD_Version(void);

#ifdef __cplusplus
} /* extern "C" */
#endif

#endif /* TFD_C_API_TFD_C_API_H_ */
