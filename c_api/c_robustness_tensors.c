/* Robustness cases of TF_Status, TF_Tensor, TF_TString, TF_Buffer, the
 * version strings and TFD_Options (see c_robustness.h). */
#include <stdint.h>
#include <string.h>

#include "c_api/c_robustness.h"

static void Status(void) {
  COVERS(TF_NewStatus);
  TF_Status* s = TF_NewStatus(); /* No arguments to get wrong. */
  EXPECT(s != NULL && TF_GetCode(s) == TF_OK);
  COVERS(TF_GetCode);
  COVERS(TF_Message);
  EXPECT(TF_GetCode(NULL) == TF_INVALID_ARGUMENT && TF_Message(NULL) != NULL);
  COVERS(TF_SetStatus);
  TF_SetStatus(NULL, TF_INTERNAL, NULL);
  TF_SetStatus(s, TF_INTERNAL, NULL);
  EXPECT(TF_GetCode(s) == TF_INTERNAL && TF_Message(s) != NULL);
  COVERS(TF_SetStatusFromIOError);
  TF_SetStatusFromIOError(NULL, 2, NULL);
  TF_SetStatusFromIOError(s, 99999, NULL);
  EXPECT(TF_GetCode(s) == TF_UNKNOWN);
  COVERS(TF_DeleteStatus);
  TF_DeleteStatus(NULL);
  TF_DeleteStatus(s);
}

static void Tensors(TF_Status* s) {
  COVERS(TF_DataTypeSize);
  EXPECT(TF_DataTypeSize((TF_DataType)-5) == 0);
  const int64_t two = 2, negative = -2;
  const int64_t two_by_three[2] = {2, 3};
  float data[6] = {0};
  COVERS(TF_NewTensor);
  EXPECT(TF_NewTensor((TF_DataType)0, NULL, 0, NULL, 0, NULL, NULL) == NULL);
  EXPECT(TF_NewTensor(TF_FLOAT, NULL, 2, data, sizeof(data), NULL, NULL) == NULL);
  EXPECT(TF_NewTensor(TF_FLOAT, &negative, 1, data, sizeof(data), NULL, NULL) == NULL);
  EXPECT(TF_NewTensor(TF_FLOAT, two_by_three, 2, data, sizeof(data) - 1, NULL, NULL) == NULL);
  EXPECT(TF_NewTensor(TF_FLOAT, two_by_three, 2, NULL, sizeof(data), NULL, NULL) == NULL);
  EXPECT(TF_NewTensor(TF_FLOAT, two_by_three, -1, data, sizeof(data), NULL, NULL) == NULL);
  COVERS(TF_AllocateTensor);
  EXPECT(TF_AllocateTensor(TF_FLOAT, NULL, 3, 0) == NULL);
  EXPECT(TF_AllocateTensor((TF_DataType)12345, &two, 1, 8) == NULL);
  EXPECT(TF_AllocateTensor(TF_FLOAT, &negative, 1, 8) == NULL);
  EXPECT(TF_AllocateTensor(TF_FLOAT, two_by_three, 2, 6 * sizeof(float) + 1) == NULL);
  COVERS(TF_TensorMaybeMove);
  EXPECT(TF_TensorMaybeMove(NULL) == NULL);
  COVERS(TF_TensorType);
  COVERS(TF_NumDims);
  COVERS(TF_Dim);
  EXPECT(TF_TensorType(NULL) == 0 && TF_NumDims(NULL) == 0 && TF_Dim(NULL, 0) == -1);
  COVERS(TF_TensorByteSize);
  COVERS(TF_TensorData);
  EXPECT(TF_TensorByteSize(NULL) == 0 && TF_TensorData(NULL) == NULL);
  COVERS(TF_TensorElementCount);
  COVERS(TF_TensorIsAligned);
  EXPECT(TF_TensorElementCount(NULL) == 0 && TF_TensorIsAligned(NULL) == 0);
  /* Dimensions out of range; shapes that do not fit leave the tensor as it was. */
  TF_Tensor* t = TF_AllocateTensor(TF_FLOAT, two_by_three, 2, 6 * sizeof(float));
  EXPECT(TF_Dim(t, 2) == -1 && TF_Dim(t, -1) == -1);
  COVERS(TF_SetShape);
  TF_SetShape(NULL, NULL, -1);
  TF_SetShape(t, NULL, 2);
  TF_SetShape(t, two_by_three, -1);
  const int64_t five = 5;
  TF_SetShape(t, &five, 1);
  EXPECT(TF_NumDims(t) == 2 && TF_Dim(t, 0) == 2 && TF_Dim(t, 1) == 3);
  COVERS(TF_DeleteTensor);
  TF_DeleteTensor(t);
  TF_DeleteTensor(NULL);

  /* Strings: NULLs, lengths that do not fit, elements that are no TF_TString. */
  COVERS(TF_StringInit);
  TF_StringInit(NULL);
  COVERS(TF_StringCopy);
  TF_StringCopy(NULL, "x", 1);
  COVERS(TF_StringAssignView);
  TF_StringAssignView(NULL, "x", 1);
  COVERS(TF_StringDealloc);
  TF_StringDealloc(NULL);
  COVERS(TF_StringGetDataPointer);
  COVERS(TF_StringGetSize);
  EXPECT(TF_StringGetDataPointer(NULL) == NULL && TF_StringGetSize(NULL) == 0);
  COVERS(TF_StringGetCapacity);
  COVERS(TF_StringGetType);
  EXPECT(TF_StringGetCapacity(NULL) == 0 && TF_StringGetType(NULL) == TF_TSTR_SMALL);
  EXPECT(TF_AllocateTensor(TF_STRING, &two, 1, 2) == NULL);
  EXPECT(TF_NewTensor(TF_STRING, &two, 1, NULL, 2 * sizeof(TF_TString), NULL, NULL) == NULL);
  TF_Tensor* strings = TF_AllocateTensor(TF_STRING, &two, 1, 2 * sizeof(TF_TString));
  TF_TString* elements = (TF_TString*)TF_TensorData(strings);
  TF_StringCopy(NULL, NULL, 0);
  TF_StringCopy(&elements[0], NULL, 5);
  TF_StringAssignView(&elements[1], NULL, 3);
  EXPECT(TF_StringGetSize(&elements[0]) == 0 && TF_StringGetSize(&elements[1]) == 0);
  elements[0].u.large.size = 5 << 2 | TF_TSTR_LARGE; /* NULL pointer, 5 bytes */
  elements[0].u.large.cap = 5;
  elements[0].u.large.ptr = NULL;
  TFD_Dataset* from_bad_string = TFD_NewDatasetFromTensors(&strings, 1, s);
  EXPECT(from_bad_string == NULL);
  EXPECT_ERROR(s, TF_INVALID_ARGUMENT);
  TF_StringInit(&elements[0]);
  TF_DeleteTensor(strings);
}

static void BuffersAndVersions(void) {
  COVERS(TF_NewBufferFromString);
  EXPECT(TF_NewBufferFromString(NULL, 1) == NULL);
  COVERS(TF_NewBuffer);
  TF_Buffer* b = TF_NewBuffer(); /* No arguments to get wrong. */
  COVERS(TF_GetBuffer);
  EXPECT(TF_GetBuffer(NULL).length == 0 && TF_GetBuffer(b).data == NULL);
  COVERS(TF_DeleteBuffer);
  TF_DeleteBuffer(b);
  TF_DeleteBuffer(NULL);
  COVERS(TF_Version);
  COVERS(TFD_Version);
  EXPECT(TF_Version() != NULL && TFD_Version() != NULL); /* No arguments. */
}

int StatusAndTensorCases(void) {
  Status();
  TF_Status* s = TF_NewStatus();
  Tensors(s);
  BuffersAndVersions();
  TF_DeleteStatus(s);
  return failures;
}

/* Each setter refuses NULL options, a NULL or empty key, and its own bad values. */
int OptionsCases(void) {
  const int before = failures;
  TF_Status* s = TF_NewStatus();
  COVERS(TFD_NewOptions);
  TFD_Options* o = TFD_NewOptions(); /* No arguments to get wrong. */
  EXPECT(o != NULL);
  COVERS(TFD_OptionsSetInt);
  TFD_OptionsSetInt(NULL, "k", 1, s);
  EXPECT_ERROR(s, TF_INVALID_ARGUMENT);
  TFD_OptionsSetInt(o, NULL, 1, s);
  EXPECT_ERROR(s, TF_INVALID_ARGUMENT);
  TFD_OptionsSetInt(o, "", 1, s);
  EXPECT_ERROR(s, TF_INVALID_ARGUMENT);
  COVERS(TFD_OptionsSetDouble);
  TFD_OptionsSetDouble(o, "rate", 1.0 / 0.0, s);
  EXPECT_ERROR(s, TF_INVALID_ARGUMENT);
  TFD_OptionsSetDouble(NULL, "rate", 1.0, s);
  EXPECT_ERROR(s, TF_INVALID_ARGUMENT);
  TFD_OptionsSetDouble(o, NULL, 1.0, s);
  EXPECT_ERROR(s, TF_INVALID_ARGUMENT);
  COVERS(TFD_OptionsSetBool);
  TFD_OptionsSetBool(NULL, "b", 1, s);
  EXPECT_ERROR(s, TF_INVALID_ARGUMENT);
  TFD_OptionsSetBool(o, NULL, 1, s);
  EXPECT_ERROR(s, TF_INVALID_ARGUMENT);
  COVERS(TFD_OptionsSetString);
  TFD_OptionsSetString(o, "padding", NULL, s);
  EXPECT_ERROR(s, TF_INVALID_ARGUMENT);
  TFD_OptionsSetString(NULL, "padding", "same", s);
  EXPECT_ERROR(s, TF_INVALID_ARGUMENT);
  TFD_OptionsSetString(o, NULL, "same", s);
  EXPECT_ERROR(s, TF_INVALID_ARGUMENT);
  COVERS(TFD_OptionsSetIntList);
  const int64_t strides[2] = {1, 1};
  TFD_OptionsSetIntList(o, "strides", NULL, 2, s);
  EXPECT_ERROR(s, TF_INVALID_ARGUMENT);
  TFD_OptionsSetIntList(o, "strides", NULL, -1, s);
  EXPECT_ERROR(s, TF_INVALID_ARGUMENT);
  TFD_OptionsSetIntList(NULL, "strides", strides, 2, s);
  EXPECT_ERROR(s, TF_INVALID_ARGUMENT);
  TFD_OptionsSetIntList(o, NULL, strides, 2, s);
  EXPECT_ERROR(s, TF_INVALID_ARGUMENT);
  COVERS(TFD_OptionsSetDoubleList);
  const double weights[2] = {1.0, 0.0 / 0.0};
  TFD_OptionsSetDoubleList(o, "class_weight", NULL, 2, s);
  EXPECT_ERROR(s, TF_INVALID_ARGUMENT);
  TFD_OptionsSetDoubleList(NULL, "class_weight", NULL, 0, s);
  EXPECT_ERROR(s, TF_INVALID_ARGUMENT);
  TFD_OptionsSetDoubleList(o, NULL, weights, 1, s);
  EXPECT_ERROR(s, TF_INVALID_ARGUMENT);
  TFD_OptionsSetDoubleList(o, "class_weight", weights, 2, s); /* NaN */
  EXPECT_ERROR(s, TF_INVALID_ARGUMENT);
  /* A NULL status is allowed: the caller does not want to hear. */
  TFD_OptionsSetInt(NULL, NULL, 0, NULL);
  COVERS(TFD_DeleteOptions);
  TFD_DeleteOptions(o);
  TFD_DeleteOptions(NULL);
  TF_DeleteStatus(s);
  return failures - before;
}
