/* Compiled as C11 with -Wall -Werror: the public headers must be pure C.
 * Also exercises every TF_* function, NULL arguments included. */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "c_api/c_expect.h"
#include "tensorflow/c/c_api.h"
#include "tfd/c_api.h"

static int deallocated = 0;
static void Deallocate(void* data, size_t len, void* arg) {
  EXPECT(len == 6 * sizeof(float));
  EXPECT(arg == (void*)&deallocated);
  free(data);
  ++deallocated;
}

int main(void) {
  /* Status. */
  TF_Status* s = TF_NewStatus();
  EXPECT(TF_GetCode(s) == TF_OK);
  EXPECT(strcmp(TF_Message(s), "") == 0);
  TF_SetStatus(s, TF_NOT_FOUND, "no such thing");
  EXPECT(TF_GetCode(s) == TF_NOT_FOUND);
  EXPECT(strcmp(TF_Message(s), "no such thing") == 0);
  TF_SetStatusFromIOError(s, 2 /* ENOENT */, "/missing");
  EXPECT(TF_GetCode(s) == TF_NOT_FOUND);
  EXPECT(strstr(TF_Message(s), "/missing") != NULL);
  TF_SetStatus(s, TF_OK, "ignored");
  EXPECT(strcmp(TF_Message(s), "") == 0);
  TF_SetStatus(NULL, TF_INTERNAL, "x");
  EXPECT(TF_GetCode(NULL) == TF_INVALID_ARGUMENT);
  EXPECT(TF_Message(NULL) != NULL);
  TF_DeleteStatus(s);
  TF_DeleteStatus(NULL);

  /* Data types. */
  EXPECT(TF_DataTypeSize(TF_FLOAT) == 4);
  EXPECT(TF_DataTypeSize(TF_BFLOAT16) == 2);
  EXPECT(TF_DataTypeSize(TF_STRING) == 0);
  EXPECT(TF_DataTypeSize((TF_DataType)999) == 0);

  /* Tensors over caller memory. */
  int64_t dims[2] = {2, 3};
  float* values = (float*)malloc(6 * sizeof(float));
  for (int i = 0; i < 6; ++i) values[i] = (float)i;
  TF_Tensor* t = TF_NewTensor(TF_FLOAT, dims, 2, values, 6 * sizeof(float), Deallocate,
                              &deallocated);
  EXPECT(t != NULL);
  EXPECT(TF_TensorType(t) == TF_FLOAT);
  EXPECT(TF_NumDims(t) == 2);
  EXPECT(TF_Dim(t, 1) == 3);
  EXPECT(TF_Dim(t, 2) == -1);
  EXPECT(TF_Dim(t, -1) == -1);
  EXPECT(TF_TensorByteSize(t) == 24);
  EXPECT(TF_TensorElementCount(t) == 6);
  EXPECT(((float*)TF_TensorData(t))[5] == 5.0f);
  EXPECT(TF_TensorMaybeMove(t) == t);
  int64_t flat[1] = {6};
  TF_SetShape(t, flat, 1);
  EXPECT(TF_NumDims(t) == 1);
  int64_t wrong[1] = {7};
  TF_SetShape(t, wrong, 1);
  EXPECT(TF_Dim(t, 0) == 6);
  TF_DeleteTensor(t);
  EXPECT(deallocated == 1);

  /* Invalid tensors are NULL, never a crash. */
  float small[2] = {0, 0};
  int64_t negative[1] = {-1};
  EXPECT(TF_NewTensor(TF_FLOAT, dims, 2, small, sizeof(small), NULL, NULL) == NULL);
  EXPECT(TF_NewTensor(TF_FLOAT, negative, 1, small, sizeof(small), NULL, NULL) == NULL);
  EXPECT(TF_NewTensor(TF_FLOAT, NULL, 2, small, sizeof(small), NULL, NULL) == NULL);
  EXPECT(TF_NewTensor(TF_FLOAT, dims, -1, small, sizeof(small), NULL, NULL) == NULL);
  EXPECT(TF_NewTensor(TF_FLOAT, dims, 2, NULL, 24, NULL, NULL) == NULL);
  /* Six TF_TStrings need 144 bytes. */
  EXPECT(TF_NewTensor(TF_STRING, dims, 2, small, sizeof(small), NULL, NULL) == NULL);
  EXPECT(deallocated == 1);

  /* Allocated tensors, scalars and empty tensors. */
  TF_Tensor* a = TF_AllocateTensor(TF_INT64, NULL, 0, 8);
  EXPECT(a != NULL);
  EXPECT(TF_NumDims(a) == 0);
  EXPECT(TF_TensorIsAligned(a) == 1);
  *(int64_t*)TF_TensorData(a) = 42;
  TF_DeleteTensor(a);
  int64_t zero[2] = {0, 5};
  TF_Tensor* e = TF_AllocateTensor(TF_FLOAT, zero, 2, 0);
  EXPECT(e != NULL && TF_TensorElementCount(e) == 0);
  TF_DeleteTensor(e);
  EXPECT(TF_AllocateTensor(TF_FLOAT, dims, 2, 23) == NULL);
  int64_t huge[2] = {INT64_MAX / 2, 4};
  EXPECT(TF_AllocateTensor(TF_FLOAT, huge, 2, 16) == NULL);
  EXPECT(TF_TensorType(NULL) == 0 && TF_NumDims(NULL) == 0 && TF_Dim(NULL, 0) == -1);
  EXPECT(TF_TensorData(NULL) == NULL && TF_TensorByteSize(NULL) == 0);
  EXPECT(TF_TensorElementCount(NULL) == 0 && TF_TensorIsAligned(NULL) == 0);
  EXPECT(TF_TensorMaybeMove(NULL) == NULL);
  TF_SetShape(NULL, dims, 2);
  TF_DeleteTensor(NULL);

  /* Buffers. */
  TF_Buffer* b = TF_NewBufferFromString("abc", 3);
  EXPECT(b != NULL && b->length == 3 && memcmp(b->data, "abc", 3) == 0);
  TF_Buffer copy = TF_GetBuffer(b);
  EXPECT(copy.data == b->data);
  TF_DeleteBuffer(b);
  TF_Buffer* empty = TF_NewBuffer();
  EXPECT(empty != NULL && empty->data == NULL && empty->length == 0);
  TF_DeleteBuffer(empty);
  TF_DeleteBuffer(NULL);
  EXPECT(TF_NewBufferFromString(NULL, 4) == NULL);
  EXPECT(TF_GetBuffer(NULL).data == NULL);

  /* Versions. */
  EXPECT(strncmp(TF_Version(), "2.", 2) == 0);
  EXPECT(strcmp(TFD_Version(), "0.6.0") == 0);
  EXPECT(TFD_API_VERSION == 600);

  if (failures == 0) printf("c_test: all checks passed\n");
  return failures == 0 ? 0 : 1;
}
