/* The README's C snippet: a small classifier trained from C arrays under
 * MirroredStrategy with two CPU replicas, then used to predict. */
#include <stdio.h>

#include "tfd/c_api.h"

int main(void) {
  TF_Status* s = TF_NewStatus();

  /* 64 examples of 2 features; the label says which feature is larger. */
  float features[64][2];
  int64_t labels[64];
  for (int i = 0; i < 64; ++i) {
    features[i][0] = (float)(i % 8) / 8;
    features[i][1] = (float)(i / 8) / 8;
    labels[i] = features[i][0] > features[i][1];
  }
  const int64_t x_dims[2] = {64, 2}, y_dims[1] = {64};
  TF_Tensor* x = TF_NewTensor(TF_FLOAT, x_dims, 2, features, sizeof(features), NULL, NULL);
  TF_Tensor* y = TF_NewTensor(TF_INT64, y_dims, 1, labels, sizeof(labels), NULL, NULL);
  TF_Tensor* columns[2] = {x, y};
  TFD_Dataset* examples = TFD_NewDatasetFromTensors(columns, 2, s);
  TFD_Dataset* batches = TFD_DatasetBatch(examples, 16, 0, s);

  TFD_Options* replicas = TFD_NewOptions();
  TFD_OptionsSetInt(replicas, "num_replicas", 2, s);
  TFD_Strategy* mirrored = TFD_NewStrategy("mirrored", replicas, s);

  TFD_Model* model = TFD_NewSequential(mirrored, "quickstart", s);
  const int64_t input[1] = {2};
  TFD_AddInput(model, input, 1, TF_FLOAT, s);
  TFD_AddDense(model, 16, "relu", NULL, s);
  TFD_AddDense(model, 2, "softmax", NULL, s);
  TFD_Options* adam = TFD_NewOptions();
  TFD_OptionsSetDouble(adam, "learning_rate", 0.05, s);
  const char* metrics[] = {"accuracy"};
  TFD_ModelCompile(model, "adam", adam, "sparse_categorical_crossentropy", NULL, metrics, 1, s);
  TFD_ModelFit(model, batches, 30, NULL, NULL, s);

  double loss_and_accuracy[2];
  TFD_ModelEvaluate(model, batches, loss_and_accuracy, 2, s);
  TF_Tensor* probabilities = TFD_ModelPredict(model, x, 0, s);
  if (TF_GetCode(s) != TF_OK) {
    fprintf(stderr, "error: %s\n", TF_Message(s));
    return 1;
  }
  printf("loss %.4f, accuracy %.4f, P(label 1 | x[1]) = %.4f\n", loss_and_accuracy[0],
         loss_and_accuracy[1], ((float*)TF_TensorData(probabilities))[3]);

  TF_DeleteTensor(probabilities);
  TFD_DeleteModel(model);
  TFD_DeleteStrategy(mirrored);
  TFD_DeleteOptions(adam);
  TFD_DeleteOptions(replicas);
  TFD_DeleteDataset(batches);
  TFD_DeleteDataset(examples);
  TF_DeleteTensor(x);
  TF_DeleteTensor(y);
  TF_DeleteStatus(s);
  return 0;
}
