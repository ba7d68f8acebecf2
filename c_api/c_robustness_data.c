/* Robustness cases of datasets and iterators (tfd/dataset.h,
 * tfd/iterator.h; see c_robustness.h). */
#include <stdint.h>

#include "c_api/c_robustness.h"

static void Sources(TF_Status* s) {
  COVERS(TFD_NewDatasetFromTensors);
  EXPECT(TFD_NewDatasetFromTensors(NULL, 1, s) == NULL);
  EXPECT_ERROR(s, TF_INVALID_ARGUMENT);
  TF_Tensor* none[2] = {NULL, NULL};
  EXPECT(TFD_NewDatasetFromTensors(none, 2, s) == NULL);
  EXPECT_ERROR(s, TF_INVALID_ARGUMENT);
  /* A scalar cannot be sliced; first dimensions must agree; counts >= 1. */
  TF_Tensor* scalar = TF_AllocateTensor(TF_FLOAT, NULL, 0, 4);
  EXPECT(TFD_NewDatasetFromTensors(&scalar, 1, s) == NULL);
  EXPECT_ERROR(s, TF_INVALID_ARGUMENT);
  int64_t three = 3, four = 4;
  TF_Tensor* pair[2] = {TF_AllocateTensor(TF_FLOAT, &three, 1, 12),
                        TF_AllocateTensor(TF_INT64, &four, 1, 32)};
  EXPECT(TFD_NewDatasetFromTensors(pair, 2, s) == NULL);
  EXPECT_ERROR(s, TF_INVALID_ARGUMENT);
  EXPECT(TFD_NewDatasetFromTensors(pair, 0, s) == NULL);
  EXPECT_ERROR(s, TF_INVALID_ARGUMENT);
  EXPECT(TFD_NewDatasetFromTensors(pair, -1, s) == NULL);
  EXPECT_ERROR(s, TF_INVALID_ARGUMENT);
  TF_DeleteTensor(scalar);
  TF_DeleteTensor(pair[0]);
  TF_DeleteTensor(pair[1]);

  COVERS(TFD_NewDatasetFromIdx);
  EXPECT(TFD_NewDatasetFromIdx(NULL, "labels", 0, s) == NULL);
  EXPECT_ERROR(s, TF_INVALID_ARGUMENT);
  EXPECT(TFD_NewDatasetFromIdx("images", NULL, 0, s) == NULL);
  EXPECT_ERROR(s, TF_INVALID_ARGUMENT);
  EXPECT(TFD_NewDatasetFromIdx("/nonexistent/images", "/nonexistent/labels", 0, s) == NULL);
  EXPECT_ERROR(s, TF_NOT_FOUND);

  COVERS(TFD_NewDatasetFromTFRecord);
  const char* files[1] = {"/nonexistent.tfrecord"};
  const char* null_file[1] = {NULL};
  const char* keys[1] = {"x"};
  const char* null_key[1] = {NULL};
  TF_DataType bad_type[1] = {TF_INT32};
  TF_DataType float_type[1] = {TF_FLOAT};
  int rank0[1] = {0};
  int rank1[1] = {1};
  int negative_rank[1] = {-1};
  EXPECT(TFD_NewDatasetFromTFRecord(NULL, 1, keys, float_type, NULL, rank0, 1, s) == NULL);
  EXPECT_ERROR(s, TF_INVALID_ARGUMENT);
  EXPECT(TFD_NewDatasetFromTFRecord(null_file, 1, keys, float_type, NULL, rank0, 1, s) == NULL);
  EXPECT_ERROR(s, TF_INVALID_ARGUMENT);
  EXPECT(TFD_NewDatasetFromTFRecord(files, 0, keys, float_type, NULL, rank0, 1, s) == NULL);
  EXPECT_ERROR(s, TF_INVALID_ARGUMENT);
  EXPECT(TFD_NewDatasetFromTFRecord(files, 1, NULL, float_type, NULL, rank0, 1, s) == NULL);
  EXPECT_ERROR(s, TF_INVALID_ARGUMENT);
  EXPECT(TFD_NewDatasetFromTFRecord(files, 1, null_key, float_type, NULL, rank0, 1, s) == NULL);
  EXPECT_ERROR(s, TF_INVALID_ARGUMENT);
  EXPECT(TFD_NewDatasetFromTFRecord(files, 1, keys, NULL, NULL, rank0, 1, s) == NULL);
  EXPECT_ERROR(s, TF_INVALID_ARGUMENT);
  EXPECT(TFD_NewDatasetFromTFRecord(files, 1, keys, float_type, NULL, NULL, 1, s) == NULL);
  EXPECT_ERROR(s, TF_INVALID_ARGUMENT);
  EXPECT(TFD_NewDatasetFromTFRecord(files, 1, keys, float_type, NULL, rank0, 0, s) == NULL);
  EXPECT_ERROR(s, TF_INVALID_ARGUMENT);
  EXPECT(TFD_NewDatasetFromTFRecord(files, 1, keys, bad_type, NULL, rank0, 1, s) == NULL);
  EXPECT_ERROR(s, TF_INVALID_ARGUMENT);
  EXPECT(TFD_NewDatasetFromTFRecord(files, 1, keys, float_type, NULL, rank1, 1, s) == NULL);
  EXPECT_ERROR(s, TF_INVALID_ARGUMENT);
  EXPECT(TFD_NewDatasetFromTFRecord(files, 1, keys, float_type, NULL, negative_rank, 1, s) ==
         NULL);
  EXPECT_ERROR(s, TF_INVALID_ARGUMENT);
}

static void Transforms(TFD_Dataset* d, TF_Status* s) {
  COVERS(TFD_DatasetShuffle);
  EXPECT(TFD_DatasetShuffle(NULL, 2, 1, 1, s) == NULL);
  EXPECT_ERROR(s, TF_INVALID_ARGUMENT);
  EXPECT(TFD_DatasetShuffle(d, 0, 1, 1, s) == NULL);
  EXPECT_ERROR(s, TF_INVALID_ARGUMENT);
  COVERS(TFD_DatasetBatch);
  EXPECT(TFD_DatasetBatch(NULL, 2, 0, s) == NULL);
  EXPECT_ERROR(s, TF_INVALID_ARGUMENT);
  EXPECT(TFD_DatasetBatch(d, 0, 0, s) == NULL);
  EXPECT_ERROR(s, TF_INVALID_ARGUMENT);
  COVERS(TFD_DatasetRepeat);
  EXPECT(TFD_DatasetRepeat(NULL, 2, s) == NULL);
  EXPECT_ERROR(s, TF_INVALID_ARGUMENT);
  EXPECT(TFD_DatasetRepeat(d, -7, s) == NULL);
  EXPECT_ERROR(s, TF_INVALID_ARGUMENT);
  COVERS(TFD_DatasetTake);
  EXPECT(TFD_DatasetTake(NULL, 1, s) == NULL);
  EXPECT_ERROR(s, TF_INVALID_ARGUMENT);
  COVERS(TFD_DatasetShard);
  EXPECT(TFD_DatasetShard(NULL, 2, 0, s) == NULL);
  EXPECT_ERROR(s, TF_INVALID_ARGUMENT);
  EXPECT(TFD_DatasetShard(d, 0, 0, s) == NULL);
  EXPECT_ERROR(s, TF_INVALID_ARGUMENT);
  EXPECT(TFD_DatasetShard(d, 2, 2, s) == NULL);
  EXPECT_ERROR(s, TF_INVALID_ARGUMENT);
  EXPECT(TFD_DatasetShard(d, 2, -1, s) == NULL);
  EXPECT_ERROR(s, TF_INVALID_ARGUMENT);
  COVERS(TFD_DatasetCardinality);
  EXPECT(TFD_DatasetCardinality(NULL, s) == 0);
  EXPECT_ERROR(s, TF_INVALID_ARGUMENT);
  EXPECT(TFD_DatasetCardinality(d, s) == 3);
}

static void Iterators(TFD_Dataset* d, TF_Status* s) {
  COVERS(TFD_NewDatasetIterator);
  EXPECT(TFD_NewDatasetIterator(NULL, s) == NULL);
  EXPECT_ERROR(s, TF_INVALID_ARGUMENT);
  COVERS(TFD_IteratorGetNext);
  TF_Tensor* element[1] = {NULL};
  EXPECT(TFD_IteratorGetNext(NULL, element, 1, s) == 0);
  EXPECT_ERROR(s, TF_INVALID_ARGUMENT);
  TFD_Iterator* it = TFD_NewDatasetIterator(d, s);
  EXPECT_OK(s);
  EXPECT(TFD_IteratorGetNext(it, NULL, 1, s) == 0);
  EXPECT_ERROR(s, TF_INVALID_ARGUMENT);
  EXPECT(TFD_IteratorGetNext(it, element, -1, s) == 0);
  EXPECT_ERROR(s, TF_INVALID_ARGUMENT);
  EXPECT(TFD_IteratorGetNext(it, NULL, 0, s) == 1); /* No room: the size comes back. */
  EXPECT_ERROR(s, TF_INVALID_ARGUMENT);
  for (int i = 0; i < 3; ++i) {
    EXPECT(TFD_IteratorGetNext(it, element, 1, s) == 1);
    EXPECT_OK(s);
    TF_DeleteTensor(element[0]);
  }
  EXPECT(TFD_IteratorGetNext(it, element, 1, s) == 0);
  EXPECT_ERROR(s, TF_OUT_OF_RANGE);
  COVERS(TFD_DeleteIterator);
  TFD_DeleteIterator(it);
  TFD_DeleteIterator(NULL);
}

int DatasetCases(void) {
  TF_Status* s = TF_NewStatus();
  Sources(s);
  int64_t three = 3;
  TF_Tensor* column = TF_AllocateTensor(TF_FLOAT, &three, 1, 12);
  TFD_Dataset* d = TFD_NewDatasetFromTensors(&column, 1, s);
  EXPECT_OK(s);
  Transforms(d, s);
  Iterators(d, s);
  COVERS(TFD_DeleteDataset);
  TFD_DeleteDataset(d);
  TFD_DeleteDataset(NULL);
  TF_DeleteTensor(column);
  TF_DeleteStatus(s);
  return failures;
}
