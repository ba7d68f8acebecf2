/* TF_Buffer: a block of bytes (usually a serialized protocol buffer)
 * crossing the C API (source-compatible with tensorflow/c/tf_buffer.h). */
#ifndef TFD_C_API_TENSORFLOW_C_TF_BUFFER_H_
#define TFD_C_API_TENSORFLOW_C_TF_BUFFER_H_

#include <stddef.h>

#ifndef TF_CAPI_EXPORT
#define TF_CAPI_EXPORT __attribute__((visibility("default")))
#endif

#ifdef __cplusplus
extern "C" {
#endif

typedef struct TF_Buffer {
  const void* data;
  size_t length;
  /* Called by TF_DeleteBuffer on `data` when set. */
  void (*data_deallocator)(void* data, size_t length);
} TF_Buffer;

/* A buffer holding a copy of `proto[0, proto_len)`. */
TF_CAPI_EXPORT extern TF_Buffer* TF_NewBufferFromString(const void* proto, size_t proto_len);
/* An empty buffer, to be filled by a call that outputs bytes. */
TF_CAPI_EXPORT extern TF_Buffer* TF_NewBuffer(void);
/* Frees the buffer, and its data through data_deallocator; NULL: no-op. */
TF_CAPI_EXPORT extern void TF_DeleteBuffer(TF_Buffer* buffer);
/* A copy of the struct (the data is not copied). */
TF_CAPI_EXPORT extern TF_Buffer TF_GetBuffer(TF_Buffer* buffer);

#ifdef __cplusplus
} /* extern "C" */
#endif

#endif /* TFD_C_API_TENSORFLOW_C_TF_BUFFER_H_ */
