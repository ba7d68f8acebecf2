/* TFD_Model: a Keras-style model built, compiled and trained through C.
 *
 * Build it layer by layer (TFD_NewSequential, TFD_AddInput, TFD_AddDense,
 * ...) or from Keras's model.to_json() text (TFD_NewModelFromKerasJson),
 * under a strategy (TFD_Strategy; NULL: the default strategy). Layer
 * arguments not in a function's signature are passed as TFD_Options with
 * Keras's names ("use_bias", "kernel_initializer", "strides", "padding",
 * "name", ...); the errors are Keras's.
 *
 * TFD_ModelCompile picks the optimizer, loss and metrics by Keras name;
 * TFD_ModelTrainStep then runs one training step on one global batch
 * (tf.distribute's custom loop: the batch split between the replicas,
 * each replica's per-example loss summed and divided by the GLOBAL batch
 * size, gradients all-reduced, then applied); TFD_ModelFit and
 * TFD_ModelEvaluate are Keras's model.fit and model.evaluate over a
 * dataset of (x, y) batches (core/nn's Model::Fit and Model::Evaluate);
 * TFD_ModelPredict runs inference. The custom loop and Fit share the
 * optimizer and its state.
 *
 * Ownership: the caller owns the model (TFD_DeleteModel). Tensors returned
 * are the caller's (TF_DeleteTensor); tensors passed in are only read.
 * Thread safety: one call at a time per model.
 *
 *   TFD_Model* m = TFD_NewSequential(strategy, "mlp", s);
 *   int64_t image[2] = {28, 28};
 *   TFD_AddInput(m, image, 2, TF_FLOAT, s);
 *   TFD_AddFlatten(m, NULL, s);
 *   TFD_AddDense(m, 128, "relu", NULL, s);
 *   TFD_AddDense(m, 10, NULL, NULL, s);
 *   const char* metrics[] = {"accuracy"};
 *   TFD_Options* loss = TFD_NewOptions();
 *   TFD_OptionsSetBool(loss, "from_logits", 1, s);
 *   TFD_ModelCompile(m, "adam", NULL, "sparse_categorical_crossentropy", loss, metrics, 1, s);
 *   float step_loss = TFD_ModelTrainStep(m, images, labels, s);
 */
#ifndef TFD_C_API_TFD_MODEL_H_
#define TFD_C_API_TFD_MODEL_H_

#include <stdint.h>

#include "tensorflow/c/tf_buffer.h"
#include "tensorflow/c/tf_datatype.h"
#include "tensorflow/c/tf_status.h"
#include "tensorflow/c/tf_tensor.h"
#include "tfd/dataset.h"
#include "tfd/options.h"
#include "tfd/strategy.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef struct TFD_Model TFD_Model;

/* ---- Building ---------------------------------------------------------- */

/* An empty Sequential model named `name` (NULL: "sequential", ...) whose
 * variables live under `strategy` (NULL: the default strategy). */
TF_CAPI_EXPORT extern TFD_Model* TFD_NewSequential(TFD_Strategy* strategy, const char* name,
                                                   TF_Status* status);

/* A Sequential or Functional model from Keras's model.to_json() text, with
 * fresh weights. TF_INVALID_ARGUMENT for text that is not a Keras model,
 * TF_UNIMPLEMENTED naming the layer class or option tfd does not have. */
TF_CAPI_EXPORT extern TFD_Model* TFD_NewModelFromKerasJson(TFD_Strategy* strategy,
                                                           const char* json, TF_Status* status);

TF_CAPI_EXPORT extern void TFD_DeleteModel(TFD_Model* model);

/* Layers appended to a Sequential model (TF_INVALID_ARGUMENT for a
 * Functional one, or for a layer that does not fit the previous output).
 * TFD_AddInput declares the input of one example (no batch dimension) and
 * must come first; a model with an input is built at once. `activation`
 * is a Keras name ("relu", "softmax", ...) or NULL for linear. */
TF_CAPI_EXPORT extern void TFD_AddInput(TFD_Model* model, const int64_t* shape, int num_dims,
                                        TF_DataType dtype, TF_Status* status);
TF_CAPI_EXPORT extern void TFD_AddDense(TFD_Model* model, int64_t units, const char* activation,
                                        const TFD_Options* options, TF_Status* status);
/* kernel_size: 1 or 2 values. Options: strides, padding, dilation_rate,
 * groups, use_bias, kernel_initializer, bias_initializer, name. */
TF_CAPI_EXPORT extern void TFD_AddConv2D(TFD_Model* model, int64_t filters,
                                         const int64_t* kernel_size, int num_kernel_dims,
                                         const char* activation, const TFD_Options* options,
                                         TF_Status* status);
/* pool_size: 1 or 2 values (NULL with 0: 2x2). Options: strides, padding. */
TF_CAPI_EXPORT extern void TFD_AddMaxPooling2D(TFD_Model* model, const int64_t* pool_size,
                                               int num_pool_dims, const TFD_Options* options,
                                               TF_Status* status);
TF_CAPI_EXPORT extern void TFD_AddAveragePooling2D(TFD_Model* model, const int64_t* pool_size,
                                                   int num_pool_dims, const TFD_Options* options,
                                                   TF_Status* status);
TF_CAPI_EXPORT extern void TFD_AddGlobalAveragePooling2D(TFD_Model* model,
                                                         const TFD_Options* options,
                                                         TF_Status* status);
TF_CAPI_EXPORT extern void TFD_AddFlatten(TFD_Model* model, const TFD_Options* options,
                                          TF_Status* status);
TF_CAPI_EXPORT extern void TFD_AddReshape(TFD_Model* model, const int64_t* target_shape,
                                          int num_dims, const TFD_Options* options,
                                          TF_Status* status);
/* rate in [0, 1). Options: seed, noise_shape. */
TF_CAPI_EXPORT extern void TFD_AddDropout(TFD_Model* model, double rate,
                                          const TFD_Options* options, TF_Status* status);
TF_CAPI_EXPORT extern void TFD_AddActivation(TFD_Model* model, const char* activation,
                                             const TFD_Options* options, TF_Status* status);
/* Options: axis, momentum, epsilon, center, scale, synchronized. */
TF_CAPI_EXPORT extern void TFD_AddBatchNormalization(TFD_Model* model, const TFD_Options* options,
                                                     TF_Status* status);
/* Any layer tfd has, from its Keras JSON
 * ({"class_name": "Conv1D", "config": {...}}). */
TF_CAPI_EXPORT extern void TFD_AddLayerFromKerasJson(TFD_Model* model, const char* layer_json,
                                                     TF_Status* status);

/* Keras's model.summary() text in a new buffer (the caller deletes it).
 * TF_FAILED_PRECONDITION before the model is built. */
TF_CAPI_EXPORT extern TF_Buffer* TFD_ModelSummary(TFD_Model* model, TF_Status* status);

/* ---- Training ---------------------------------------------------------- */

/* Optimizer: "sgd", "adam", "adamw", "rmsprop", "adagrad" (or Keras's class
 * names), options "learning_rate", "momentum", "nesterov", "beta_1",
 * "beta_2", "epsilon", "amsgrad", "rho", "centered",
 * "initial_accumulator_value", "weight_decay", "clipnorm", "clipvalue",
 * "global_clipnorm" as the optimizer takes them.
 * Loss: "sparse_categorical_crossentropy", "categorical_crossentropy",
 * "binary_crossentropy", "mean_squared_error" ("mse"), options
 * "from_logits", "label_smoothing".
 * Metrics: "accuracy" (resolved from the loss as Keras does),
 * "sparse_categorical_accuracy", "categorical_accuracy",
 * "sparse_top_k_categorical_accuracy"; may be NULL with 0.
 * Compiling again replaces the optimizer (its state too) and metrics.
 * When the model's dtype policy is mixed_float16 (tfd/mixed_precision.h)
 * the optimizer is wrapped in Keras's dynamic LossScaleOptimizer, as
 * Keras's compile() does, for TFD_ModelTrainStep and TFD_ModelFit alike. */
TF_CAPI_EXPORT extern void TFD_ModelCompile(TFD_Model* model, const char* optimizer,
                                            const TFD_Options* optimizer_options,
                                            const char* loss, const TFD_Options* loss_options,
                                            const char* const* metrics, int num_metrics,
                                            TF_Status* status);

/* One training step on one global batch (x: [batch, ...], y: labels) under
 * the model's strategy; returns the batch's mean loss (0 on error).
 * Compiled metrics accumulate the batch. TF_FAILED_PRECONDITION before
 * TFD_ModelCompile; TF_INVALID_ARGUMENT for NULLs, an empty batch or
 * shapes and dtypes the model or loss refuses; TF_UNIMPLEMENTED under
 * "parameter_server", whose steps run on the workers' data (schedule them
 * with a TFD_Coordinator, tfd/coordinator.h). */
TF_CAPI_EXPORT extern float TFD_ModelTrainStep(TFD_Model* model, const TF_Tensor* x,
                                               const TF_Tensor* y, TF_Status* status);

/* The compiled metrics of the custom loop: their number, the name of
 * metric i (owned by the model, valid until it is compiled again), and the
 * value TFD_ModelTrainStep accumulated since the last reset (under
 * "parameter_server", that of the steps a TFD_Coordinator joined).
 * TFD_ModelResetMetrics zeroes them. TFD_ModelFit and TFD_ModelEvaluate
 * keep their own metrics (Keras's) and report them in their logs. */
TF_CAPI_EXPORT extern int TFD_ModelNumMetrics(const TFD_Model* model, TF_Status* status);
TF_CAPI_EXPORT extern const char* TFD_ModelMetricName(const TFD_Model* model, int index,
                                                      TF_Status* status);
TF_CAPI_EXPORT extern float TFD_ModelMetricValue(const TFD_Model* model, int index,
                                                 TF_Status* status);
TF_CAPI_EXPORT extern void TFD_ModelResetMetrics(TFD_Model* model, TF_Status* status);

/* The model's outputs for x ([batch, ...]), computed `batch_size` rows at a
 * time (<= 0: all at once), in inference mode. A new tensor the caller
 * deletes; NULL on error. */
TF_CAPI_EXPORT extern TF_Tensor* TFD_ModelPredict(TFD_Model* model, const TF_Tensor* x,
                                                  int64_t batch_size, TF_Status* status);

/* Called by TFD_ModelFit after every step (epoch_end == 0) and at the end
 * of every epoch (epoch_end == 1), with Keras's logs: names[0] is "loss"
 * (the mean over the epoch's examples so far), then the compiled metrics,
 * and at an epoch's end "val_loss" and "val_<metric>" when the epoch was
 * validated. `step` is the number of steps the epoch has run. It runs on
 * the thread that called TFD_ModelFit; the arrays are valid during the
 * call only. Return 0 to go on, nonzero to stop training (Keras's
 * model.stop_training): Fit stops after the current step, and, as in
 * Keras, the epoch still ends with its epoch_end call. */
typedef int (*TFD_FitCallback)(void* user_data, int epoch, int64_t step, int epoch_end,
                               const char* const* names, const double* values, int num_values);

/* tf.keras's model.fit(dataset, epochs=epochs, verbose=0): `epochs` passes
 * over `dataset`, whose elements are (x, y) or (x, y, sample_weight)
 * global batches, under the model's strategy, with the same numbers as
 * C++'s Model::Fit. Metrics restart at every epoch. `callback` may be NULL.
 * Stopping through the callback is not an error. TF_FAILED_PRECONDITION
 * before TFD_ModelCompile; TF_INVALID_ARGUMENT for NULLs, epochs < 0, an
 * empty or endless dataset (TFD_DatasetRepeat(-1) needs steps_per_epoch,
 * see TFD_ModelFitWithOptions), or elements that are not batches of
 * (x, y); the errors of the layers and loss (shapes, dtypes) and of the
 * dataset. The custom loop's metrics (TFD_ModelMetricValue) are not
 * touched. */
TF_CAPI_EXPORT extern void TFD_ModelFit(TFD_Model* model, const TFD_Dataset* dataset, int epochs,
                                        TFD_FitCallback callback, void* user_data,
                                        TF_Status* status);

/* model.fit with Keras's other arguments. `validation_data` (may be NULL)
 * is evaluated at the end of every validation_freq-th epoch and logged as
 * "val_loss", "val_<metric>". Options (may be NULL), with Keras's names
 * and defaults:
 *   "epochs" (int, 1), "initial_epoch" (int, 0),
 *   "steps_per_epoch" (int; default: the whole dataset; when it differs
 *     from the dataset's length one pass runs on across epochs),
 *   "validation_steps" (int; default: the whole validation set),
 *   "validation_freq" (int, 1),
 *   "class_weight" (TFD_OptionsSetDoubleList: the weight of class 0, 1,
 *     ..., applied to the loss as per-sample weights),
 *   "verbose" (int: 0 silent, the default here; 1 progress bar, 2 one line
 *     per epoch, on stdout).
 * TF_UNIMPLEMENTED naming any other option; otherwise as TFD_ModelFit. */
TF_CAPI_EXPORT extern void TFD_ModelFitWithOptions(TFD_Model* model, const TFD_Dataset* dataset,
                                                   const TFD_Dataset* validation_data,
                                                   const TFD_Options* options,
                                                   TFD_FitCallback callback, void* user_data,
                                                   TF_Status* status);

/* model.evaluate(dataset, verbose=0): one pass over `dataset` in inference
 * mode under the model's strategy. Writes the loss, then each compiled
 * metric, into results[0 .. max_results) and returns how many values there
 * are (1 + metrics; 0 on error). Errors as TFD_ModelFit. */
TF_CAPI_EXPORT extern int TFD_ModelEvaluate(TFD_Model* model, const TFD_Dataset* dataset,
                                            double* results, int max_results, TF_Status* status);

/* As TFD_ModelEvaluate, with options "steps" (int: batches to evaluate;
 * default the whole dataset) and "verbose" (int, 0). */
TF_CAPI_EXPORT extern int TFD_ModelEvaluateWithOptions(TFD_Model* model,
                                                       const TFD_Dataset* dataset,
                                                       const TFD_Options* options,
                                                       double* results, int max_results,
                                                       TF_Status* status);

#ifdef __cplusplus
} /* extern "C" */
#endif

#endif /* TFD_C_API_TFD_MODEL_H_ */
