/* TF_Status: the error value of tfd's C API, source-compatible with
 * TensorFlow's tensorflow/c/tf_status.h (same names, codes and signatures).
 *
 * A TF_Status is created by the caller, passed as the last argument of every
 * fallible call, and read afterwards with TF_GetCode and TF_Message. It is
 * not thread-safe: use one per thread.
 *
 *   TF_Status* s = TF_NewStatus();
 *   ... call ...
 *   if (TF_GetCode(s) != TF_OK) fprintf(stderr, "%s\n", TF_Message(s));
 *   TF_DeleteStatus(s);
 */
#ifndef TFD_C_API_TENSORFLOW_C_TF_STATUS_H_
#define TFD_C_API_TENSORFLOW_C_TF_STATUS_H_

#ifndef TF_CAPI_EXPORT
#define TF_CAPI_EXPORT __attribute__((visibility("default")))
#endif

#ifdef __cplusplus
extern "C" {
#endif

typedef struct TF_Status TF_Status;

/* Error codes; the values are TensorFlow's (and gRPC's) and never change. */
typedef enum TF_Code {
  TF_OK = 0,
  TF_CANCELLED = 1,
  TF_UNKNOWN = 2,
  TF_INVALID_ARGUMENT = 3,
  TF_DEADLINE_EXCEEDED = 4,
  TF_NOT_FOUND = 5,
  TF_ALREADY_EXISTS = 6,
  TF_PERMISSION_DENIED = 7,
  TF_UNAUTHENTICATED = 16,
  TF_RESOURCE_EXHAUSTED = 8,
  TF_FAILED_PRECONDITION = 9,
  TF_ABORTED = 10,
  TF_OUT_OF_RANGE = 11,
  TF_UNIMPLEMENTED = 12,
  TF_INTERNAL = 13,
  TF_UNAVAILABLE = 14,
  TF_DATA_LOSS = 15,
} TF_Code;

/* A new status holding TF_OK. Never NULL. Free with TF_DeleteStatus. */
TF_CAPI_EXPORT extern TF_Status* TF_NewStatus(void);
/* Frees `s`; NULL is a no-op. */
TF_CAPI_EXPORT extern void TF_DeleteStatus(TF_Status* s);
/* Sets code and message (copied; NULL means ""). TF_OK clears the message. */
TF_CAPI_EXPORT extern void TF_SetStatus(TF_Status* s, TF_Code code, const char* msg);
/* Sets the status from an errno value, with `context` in the message. */
TF_CAPI_EXPORT extern void TF_SetStatusFromIOError(TF_Status* s, int error_code,
                                                   const char* context);
/* The code; TF_INVALID_ARGUMENT for a NULL status. */
TF_CAPI_EXPORT extern TF_Code TF_GetCode(const TF_Status* s);
/* The message, valid until the status changes or is deleted; "" when OK. */
TF_CAPI_EXPORT extern const char* TF_Message(const TF_Status* s);

#ifdef __cplusplus
} /* extern "C" */
#endif

#endif /* TFD_C_API_TENSORFLOW_C_TF_STATUS_H_ */
