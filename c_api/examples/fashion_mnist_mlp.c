/* Trains the Fashion-MNIST MLP (Flatten, Dense 128 relu, Dense 10) from C
 * under MirroredStrategy, evaluates it, saves a checkpoint, exports a
 * SavedModel, reloads it with TensorFlow's C API and predicts.
 *
 *   fashion_mnist_mlp [--data_dir DIR] [--out_dir DIR] [--examples N]
 *                     [--epochs E] [--replicas R]
 *
 * DIR defaults to /usr/share/datasets/fashion-mnist (Debian's
 * dataset-fashion-mnist); --examples N trains and tests on the first N
 * examples of each file (0: all). Any error ends it with status 1. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "tensorflow/c/c_api.h"
#include "tfd/c_api.h"

/* Ends the program on an error. */
static void Check(TF_Status* s, const char* what) {
  if (TF_GetCode(s) == TF_OK) return;
  fprintf(stderr, "%s failed: %s\n", what, TF_Message(s));
  exit(1);
}

static int PrintEpoch(void* user_data, int epoch, int64_t step, int epoch_end,
                      const char* const* names, const double* values, int num_values) {
  const int* epochs = (const int*)user_data;
  if (!epoch_end) return 0;
  printf("Epoch %d/%d - %lld steps", epoch + 1, *epochs, (long long)step);
  for (int i = 0; i < num_values; ++i) printf(" - %s: %.4f", names[i], values[i]);
  printf("\n");
  return 0;
}

/* (images / 255, labels) from one pair of IDX files, the first `examples`. */
static TFD_Dataset* Load(const char* dir, const char* split, long examples, TF_Status* s) {
  char images[1024], labels[1024];
  snprintf(images, sizeof(images), "%s/%s-images-idx3-ubyte.gz", dir, split);
  snprintf(labels, sizeof(labels), "%s/%s-labels-idx1-ubyte.gz", dir, split);
  TFD_Dataset* all = TFD_NewDatasetFromIdx(images, labels, 1.0 / 255, s);
  Check(s, "reading the IDX files");
  if (examples <= 0) return all;
  TFD_Dataset* first = TFD_DatasetTake(all, examples, s);
  TFD_DeleteDataset(all);
  Check(s, "take");
  return first;
}

int main(int argc, char** argv) {
  const char* data_dir = "/usr/share/datasets/fashion-mnist";
  const char* out_dir = "/tmp/tfd_fashion_mnist_mlp";
  long examples = 0;
  int epochs = 1;
  int replicas = 2;
  for (int i = 1; i + 1 < argc; i += 2) {
    if (strcmp(argv[i], "--data_dir") == 0) data_dir = argv[i + 1];
    else if (strcmp(argv[i], "--out_dir") == 0) out_dir = argv[i + 1];
    else if (strcmp(argv[i], "--examples") == 0) examples = atol(argv[i + 1]);
    else if (strcmp(argv[i], "--epochs") == 0) epochs = atoi(argv[i + 1]);
    else if (strcmp(argv[i], "--replicas") == 0) replicas = atoi(argv[i + 1]);
    else {
      fprintf(stderr, "unknown flag %s\n", argv[i]);
      return 2;
    }
  }
  TF_Status* s = TF_NewStatus();
  printf("tfd %s (TensorFlow C API %s)\n", TFD_Version(), TF_Version());

  /* MirroredStrategy over `replicas` CPU replicas. */
  TFD_Options* strategy_options = TFD_NewOptions();
  TFD_OptionsSetInt(strategy_options, "num_replicas", replicas, s);
  TFD_Strategy* strategy = TFD_NewStrategy("mirrored", strategy_options, s);
  TFD_DeleteOptions(strategy_options);
  Check(s, "MirroredStrategy");

  /* Input pipelines: shuffled batches of 64 for training, 256 for testing. */
  TFD_Dataset* train_examples = Load(data_dir, "train", examples, s);
  TFD_Dataset* shuffled = TFD_DatasetShuffle(train_examples, 10000, 42, 1, s);
  TFD_Dataset* train = TFD_DatasetBatch(shuffled, 64, 0, s);
  TFD_Dataset* test_examples = Load(data_dir, "t10k", examples, s);
  TFD_Dataset* test = TFD_DatasetBatch(test_examples, 256, 0, s);
  Check(s, "datasets");

  /* The model, built in the strategy's scope (mirrored variables). */
  TFD_Model* model = TFD_NewSequential(strategy, "fashion_mnist_mlp", s);
  const int64_t image[2] = {28, 28};
  TFD_AddInput(model, image, 2, TF_FLOAT, s);
  TFD_AddFlatten(model, NULL, s);
  TFD_AddDense(model, 128, "relu", NULL, s);
  TFD_Options* logits_layer = TFD_NewOptions();
  TFD_OptionsSetString(logits_layer, "name", "logits", s);
  TFD_AddDense(model, 10, NULL, logits_layer, s);
  TFD_DeleteOptions(logits_layer);
  Check(s, "building the model");
  TF_Buffer* summary = TFD_ModelSummary(model, s);
  Check(s, "summary");
  fwrite(summary->data, 1, summary->length, stdout);
  TF_DeleteBuffer(summary);

  TFD_Options* loss_options = TFD_NewOptions();
  TFD_OptionsSetBool(loss_options, "from_logits", 1, s);
  const char* metrics[] = {"accuracy"};
  TFD_ModelCompile(model, "adam", NULL, "sparse_categorical_crossentropy", loss_options, metrics,
                   1, s);
  TFD_DeleteOptions(loss_options);
  Check(s, "compile");

  TFD_ModelFit(model, train, epochs, PrintEpoch, &epochs, s);
  Check(s, "fit");
  double results[2] = {0, 0};
  TFD_ModelEvaluate(model, test, results, 2, s);
  Check(s, "evaluate");
  printf("test loss: %.4f - test accuracy: %.4f\n", results[0], results[1]);

  char path[1024];
  snprintf(path, sizeof(path), "%s/checkpoints/ckpt", out_dir);
  TF_Buffer* saved = TFD_ModelSaveCheckpoint(model, path, s);
  Check(s, "checkpoint");
  printf("checkpoint: %.*s\n", (int)saved->length, (const char*)saved->data);
  TF_DeleteBuffer(saved);
  snprintf(path, sizeof(path), "%s/saved_model", out_dir);
  TFD_ModelExportSavedModel(model, path, s);
  Check(s, "SavedModel export");
  printf("SavedModel: %s\n", path);

  /* Reload with TensorFlow's C API and predict a batch of images (a
   * gradient from black to white), as a serving program would. */
  const int64_t dims[3] = {4, 28, 28};
  TF_Tensor* images = TF_AllocateTensor(TF_FLOAT, dims, 3, 4 * 28 * 28 * sizeof(float));
  float* pixels = (float*)TF_TensorData(images);
  for (int i = 0; i < 4 * 28 * 28; ++i) pixels[i] = (float)(i % 784) / 784;
  TF_Tensor* expected = TFD_ModelPredict(model, images, 0, s);
  Check(s, "predict");
  TF_Graph* graph = TF_NewGraph();
  TF_SessionOptions* session_options = TF_NewSessionOptions();
  const char* tags[] = {"serve"};
  TF_Session* session =
      TF_LoadSessionFromSavedModel(session_options, NULL, path, tags, 1, graph, NULL, s);
  Check(s, "TF_LoadSessionFromSavedModel");
  /* The signature's input is named after the InputLayer, its output
   * after the last layer. */
  TF_Output input = {TF_GraphOperationByName(graph, "serving_default_input_1"), 0};
  TF_Output output = {TF_GraphOperationByName(graph, "logits"), 0};
  TF_Tensor* logits = NULL;
  TF_SessionRun(session, NULL, &input, &images, 1, &output, &logits, 1, NULL, 0, NULL, s);
  Check(s, "TF_SessionRun");
  const float* served = (const float*)TF_TensorData(logits);
  const float* direct = (const float*)TF_TensorData(expected);
  double max_difference = 0;
  for (int i = 0; i < 4 * 10; ++i) {
    const double d = served[i] > direct[i] ? served[i] - direct[i] : direct[i] - served[i];
    if (d > max_difference) max_difference = d;
  }
  printf("SavedModel logits: [%lld, %lld], max |difference| from the model's: %g\n",
         (long long)TF_Dim(logits, 0), (long long)TF_Dim(logits, 1), max_difference);
  TF_DeleteTensor(logits);
  TF_CloseSession(session, s);
  TF_DeleteSession(session, s);
  TF_DeleteSessionOptions(session_options);
  TF_DeleteGraph(graph);
  printf("predicted logits: [%lld, %lld]\n", (long long)TF_Dim(expected, 0),
         (long long)TF_Dim(expected, 1));
  TF_DeleteTensor(expected);
  TF_DeleteTensor(images);

  TFD_DeleteModel(model);
  TFD_DeleteDataset(test);
  TFD_DeleteDataset(test_examples);
  TFD_DeleteDataset(train);
  TFD_DeleteDataset(shuffled);
  TFD_DeleteDataset(train_examples);
  TFD_DeleteStrategy(strategy);
  TF_DeleteStatus(s);
  return 0;
}
