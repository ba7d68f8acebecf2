/* The default device of the process: where ops that nothing else places
 * run, as TensorFlow's eager runtime runs them on GPU:0 when a GPU is
 * visible. The C form of the TFD_DEFAULT_DEVICE environment variable.
 *
 * An op runs on, in order: the device of the strategy replica running it
 * (TFD_Strategy), the device of an input already on a GPU, the default
 * device, else the host; variables made outside a strategy's replicas
 * (the "default" strategy) are placed on the default device too. With no
 * default device (the start, unless TFD_DEFAULT_DEVICE says otherwise)
 * ops run where their inputs are, else on the host. An op the default
 * device has no kernel for runs on the host.
 *
 * Thread safety: process-wide; a new default applies to ops started after
 * the call, on every thread.
 *
 *   TF_Status* s = TF_NewStatus();
 *   TFD_SetDefaultDevice("auto", s);  // GPU:0 if the build and machine have one
 *   if (TF_GetCode(s) != TF_OK) fprintf(stderr, "%s\n", TF_Message(s));
 */
#ifndef TFD_C_API_TFD_DEVICE_H_
#define TFD_C_API_TFD_DEVICE_H_

#include "tensorflow/c/tf_status.h"

#ifdef __cplusplus
extern "C" {
#endif

/* Makes `name` the default device, replacing what TFD_DEFAULT_DEVICE or an
 * earlier call said. `name` (case and surrounding spaces do not matter):
 *   NULL, "", "none", "cpu"  no default device: the host;
 *   "auto"                   GPU:0 when the library was built with CUDA and
 *                            the machine has a GPU, else the host;
 *   a device name            "/device:GPU:0", "GPU:1",
 *                            "/job:localhost/replica:0/task:0/device:GPU:0";
 *                            the host's own name ("/device:CPU:0") means
 *                            no default device.
 * Errors (the default device is then unchanged): TF_INVALID_ARGUMENT naming
 * `name` when it is not a device name or names a device this process does
 * not have (a GPU in a build without CUDA, an index past the last GPU);
 * the device's own error when a GPU is there but cannot be opened. A NULL
 * status is allowed: the call then reports nothing. */
TF_CAPI_EXPORT extern void TFD_SetDefaultDevice(const char* name, TF_Status* status);

#ifdef __cplusplus
} /* extern "C" */
#endif

#endif /* TFD_C_API_TFD_DEVICE_H_ */
