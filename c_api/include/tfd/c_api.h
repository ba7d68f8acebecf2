/* tfd's own C API (TFD_ prefix): training from C. It adds, on top of the
 * TensorFlow-compatible TF_* API (tensorflow/c/c_api.h):
 *   tfd/options.h   named Keras-style arguments (TFD_Options)
 *   tfd/device.h    the process's default device
 *   tfd/determinism.h  op determinism (TF_DETERMINISTIC_OPS)
 *   tfd/strategy.h  distribution strategies by name (TFD_Strategy)
 *   tfd/dataset.h   input pipelines (TFD_Dataset)
 *   tfd/iterator.h  a pass over a dataset, an element at a time
 *   tfd/mixed_precision.h  dtype policies (mixed_float16, ...) and loss scale
 *   tfd/model.h     models: build, compile, train, predict (TFD_Model)
 *   tfd/saving.h    checkpoints and SavedModel export
 *   tfd/server.h    the ps and worker tasks of parameter-server jobs
 *   tfd/coordinator.h  the chief's custom loop under parameter servers
 *
 * Conventions, everywhere: handles are opaque and come in New/Delete
 * pairs (Delete(NULL) is a no-op); every fallible call takes a TF_Status*
 * last and reports bad arguments (NULL, wrong dtype or rank, unknown
 * names) as TF_INVALID_ARGUMENT with a message, and options tfd does not
 * have as TF_UNIMPLEMENTED; nothing aborts or throws across the boundary.
 * The API only grows within a major version (TFD_API_VERSION).
 */
#ifndef TFD_C_API_TFD_C_API_H_
#define TFD_C_API_TFD_C_API_H_

#include "tensorflow/c/c_api.h"
#include "tfd/coordinator.h"
#include "tfd/dataset.h"
#include "tfd/determinism.h"
#include "tfd/device.h"
#include "tfd/iterator.h"
#include "tfd/mixed_precision.h"
#include "tfd/model.h"
#include "tfd/options.h"
#include "tfd/saving.h"
#include "tfd/server.h"
#include "tfd/strategy.h"

#ifdef __cplusplus
extern "C" {
#endif

/* The API version this header describes, as major * 10000 + minor * 100 +
 * patch. Compare with TFD_Version() at run time. */
#define TFD_API_VERSION 600

/* The library's semantic version, "0.6.0". */
TF_CAPI_EXPORT extern const char* TFD_Version(void);

#ifdef __cplusplus
} /* extern "C" */
#endif

#endif /* TFD_C_API_TFD_C_API_H_ */
