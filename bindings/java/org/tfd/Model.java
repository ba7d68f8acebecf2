package org.tfd;

import java.util.ArrayList;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * A Keras-style model, built, compiled, trained and run in native code
 * under a {@link Strategy}.
 *
 * <pre>{@code
 * try (Strategy mirrored = Strategy.mirrored(2);
 *     Model model = Model.sequential(mirrored, "mlp")) {
 *   model.add(Layers.input(DataType.FLOAT, 28, 28)).add(Layers.flatten())
 *       .add(Layers.dense(128, "relu")).add(Layers.dense(10, null));
 *   model.compile("adam", null, "sparse_categorical_crossentropy",
 *       Options.create().set("from_logits", true), "accuracy");
 *   List<Map<String, Double>> history = model.fit(batches, 1, null);
 * }
 * }</pre>
 *
 * <p>One call at a time per model. Tensors returned are the caller's to
 * close; tensors passed in are only read.
 */
public final class Model implements AutoCloseable {
  static {
    NativeLibrary.load();
  }

  private final NativeHandle handle;

  private Model(long pointer) {
    handle = new NativeHandle(this, pointer, Model::delete, "Model");
  }

  /** An empty Sequential model; {@code strategy} null means the default strategy. */
  public static Model sequential(Strategy strategy, String name) {
    return new Model(nativeSequential(strategyHandle(strategy), name));
  }

  /**
   * A Sequential or Functional model from Keras's model.to_json() text,
   * with fresh weights.
   *
   * @throws UnimplementedException naming a layer class or option tfd does not have
   */
  public static Model fromKerasJson(Strategy strategy, String json) {
    return new Model(nativeFromKerasJson(strategyHandle(strategy), json));
  }

  /** Appends {@code layer} to a Sequential model; returns this model. */
  public Model add(Layer layer) {
    if (layer == null) {
      throw new InvalidArgumentException("add: layer is null");
    }
    layer.addTo(handle.get());
    return this;
  }

  /** Keras's model.summary() table. FailedPreconditionException before the model is built. */
  public String summary() {
    return nativeSummary(handle.get());
  }

  /**
   * Picks the optimizer, loss and metrics by Keras name ("adam",
   * "sparse_categorical_crossentropy", "accuracy", ...). Options may be null.
   */
  public void compile(
      String optimizer,
      Options optimizerOptions,
      String loss,
      Options lossOptions,
      String... metrics) {
    nativeCompile(
        handle.get(),
        optimizer,
        Options.keysOf(optimizerOptions),
        Options.valuesOf(optimizerOptions),
        loss,
        Options.keysOf(lossOptions),
        Options.valuesOf(lossOptions),
        metrics == null ? new String[0] : metrics);
  }

  /**
   * One training step on one global batch, split between the replicas;
   * returns the batch's mean loss.
   */
  public float trainStep(Tensor x, Tensor y) {
    return nativeTrainStep(handle.get(), tensorHandle(x, "x"), tensorHandle(y, "y"));
  }

  /** The compiled metrics by name, accumulated since the last reset. */
  public Map<String, Float> metrics() {
    long m = handle.get();
    String[] names = nativeMetricNames(m);
    float[] values = nativeMetricValues(m);
    Map<String, Float> out = new LinkedHashMap<>();
    for (int i = 0; i < names.length; i++) {
      out.put(names[i], values[i]);
    }
    return Collections.unmodifiableMap(out);
  }

  public void resetMetrics() {
    nativeResetMetrics(handle.get());
  }

  /**
   * The model's own dtype policy (Keras's model.dtype_policy.name): the
   * global one when the model was made ({@link MixedPrecision}). Under
   * "mixed_float16", {@link #compile} adds dynamic loss scaling.
   */
  public String dtypePolicy() {
    return MixedPrecision.dtypePolicy(handle.get());
  }

  /**
   * The current loss scale (Keras's optimizer.loss_scale): 32768 after
   * compile, halved by a step with non-finite gradients (the step is
   * skipped), doubled after 2000 finite steps.
   *
   * @throws FailedPreconditionException before compile, or when the
   *     optimizer does no loss scaling (the model's policy is not mixed_float16)
   */
  public float lossScale() {
    return MixedPrecision.lossScale(handle.get());
  }

  /**
   * The finite steps since the loss scale last changed (Keras's
   * optimizer.dynamic_counter). Throws as {@link #lossScale()}.
   */
  public long lossScaleGoodSteps() {
    return MixedPrecision.lossScaleGoodSteps(handle.get());
  }

  /** The outputs for x, computed {@code batchSize} rows at a time (<= 0: all at once). */
  public Tensor predict(Tensor x, long batchSize) {
    return Tensor.fromNativeHandle(nativePredict(handle.get(), tensorHandle(x, "x"), batchSize));
  }

  public Tensor predict(Tensor x) {
    return predict(x, 0);
  }

  /**
   * Trains {@code epochs} passes over {@code dataset}, whose elements are
   * (x, y) batches. {@code callback} (may be null) sees every step and can
   * stop training. Returns the logs at the end of each epoch that ran.
   */
  public List<Map<String, Double>> fit(Dataset dataset, int epochs, FitCallback callback) {
    if (dataset == null) {
      throw new InvalidArgumentException("fit: dataset is null");
    }
    FitListener listener = new FitListener(callback);
    nativeFit(handle.get(), dataset.nativeHandle(), epochs, listener);
    return listener.history();
  }

  /**
   * Keras's model.fit with its other arguments: epochs, initialEpoch,
   * stepsPerEpoch, validation data, steps and frequency, class weights,
   * verbose ({@link FitOptions}; null: Keras's defaults). {@code callback}
   * (may be null) sees every step and can stop training; the logs of a
   * validated epoch's end hold "val_loss" and "val_" + each metric. Returns
   * the logs at the end of each epoch that ran.
   *
   * @throws InvalidArgumentException for bad values (negative epochs, a zero
   *     validationFreq, ...) or a dataset that never ends without stepsPerEpoch
   * @throws FailedPreconditionException before compile
   */
  public List<Map<String, Double>> fit(Dataset dataset, FitOptions options, FitCallback callback) {
    if (dataset == null) {
      throw new InvalidArgumentException("fit: dataset is null");
    }
    Dataset validation = options == null ? null : options.validationData();
    Options o = options == null ? null : options.nativeOptions();
    FitListener listener = new FitListener(callback);
    nativeFitWithOptions(
        handle.get(),
        dataset.nativeHandle(),
        validation == null ? 0 : validation.nativeHandle(),
        Options.keysOf(o),
        Options.valuesOf(o),
        listener);
    return listener.history();
  }

  /** One pass over {@code dataset} in inference mode: "loss", then the compiled metrics. */
  public Map<String, Double> evaluate(Dataset dataset) {
    if (dataset == null) {
      throw new InvalidArgumentException("evaluate: dataset is null");
    }
    long m = handle.get();
    return evaluationResults(m, nativeEvaluate(m, dataset.nativeHandle()));
  }

  /**
   * Keras's model.evaluate with "steps" and "verbose" ({@link
   * EvaluateOptions}; null: the whole dataset, silent).
   *
   * @throws InvalidArgumentException for steps &lt; 1, or a dataset that never ends without steps
   */
  public Map<String, Double> evaluate(Dataset dataset, EvaluateOptions options) {
    if (dataset == null) {
      throw new InvalidArgumentException("evaluate: dataset is null");
    }
    Options o = options == null ? null : options.nativeOptions();
    long m = handle.get();
    return evaluationResults(
        m,
        nativeEvaluateWithOptions(
            m, dataset.nativeHandle(), Options.keysOf(o), Options.valuesOf(o)));
  }

  /**
   * On a worker task of a "parameter_server" strategy: serves this compiled
   * model's training step to the chief's fit, each step on the next batch of
   * {@code dataset}, this worker's (x, y) batches (repeat(-1) them: they
   * must not end before the chief's steps do). The server keeps the model
   * and the dataset alive while it serves; closing it stops serving.
   *
   * @throws FailedPreconditionException before compile, under another strategy, or on the chief
   * @throws UnavailableException when the worker's address cannot be served
   */
  public ParameterServer serveTrainSteps(Dataset dataset) {
    if (dataset == null) {
      throw new InvalidArgumentException("serveTrainSteps: dataset is null");
    }
    return ParameterServer.servingTrainSteps(handle.get(), dataset.nativeHandle());
  }

  /**
   * As {@link #serveTrainSteps}, on the data {@code function} makes in this
   * worker's process each time the chief makes the workers' iterators (at
   * the start of every fit and {@link Coordinator#create}), called on a
   * thread of the server with this worker's place in the job. To give each
   * worker its own part of the data, the function can {@link Dataset#shard}
   * it. The function's exception fails the chief's call, naming the
   * worker's input pipeline. The server keeps the function and the model
   * alive while it serves.
   *
   * @throws FailedPreconditionException before compile, under another strategy, or on the chief
   * @throws UnavailableException when the worker's address cannot be served
   */
  public ParameterServer serveTrainStepsFromFunction(DatasetFunction function) {
    if (function == null) {
      throw new InvalidArgumentException("serveTrainStepsFromFunction: function is null");
    }
    return ParameterServer.servingTrainStepsFromFunction(handle.get(), function);
  }

  /** Writes tf.train.Checkpoint(model=, optimizer=)'s files under "filePrefix-n"; returns that prefix. */
  public String saveCheckpoint(String filePrefix) {
    return nativeSaveCheckpoint(handle.get(), filePrefix);
  }

  /** Reads a checkpoint ("dir/ckpt-3", tfd's or TensorFlow's) into the model. */
  public void restoreCheckpoint(String prefix) {
    nativeRestoreCheckpoint(handle.get(), prefix);
  }

  /** Writes a SavedModel (tag "serve", signature "serving_default") for SavedModelBundle, TensorFlow and TF Serving. */
  public void exportSavedModel(String exportDir) {
    nativeExportSavedModel(handle.get(), exportDir);
  }

  /** Frees the native model; idempotent. */
  @Override
  public void close() {
    handle.close();
  }

  long nativeHandle() {
    return handle.get();
  }

  /** "loss", then the compiled metrics by name. */
  private static Map<String, Double> evaluationResults(long model, double[] values) {
    String[] names = nativeMetricNames(model);
    Map<String, Double> out = new LinkedHashMap<>();
    out.put("loss", values[0]);
    for (int i = 1; i < values.length && i - 1 < names.length; i++) {
      out.put(names[i - 1], values[i]);
    }
    return Collections.unmodifiableMap(out);
  }

  private static long strategyHandle(Strategy strategy) {
    return strategy == null ? 0 : strategy.nativeHandle();
  }

  private static long tensorHandle(Tensor t, String what) {
    if (t == null) {
      throw new InvalidArgumentException(what + " is null");
    }
    return t.nativeHandle();
  }

  /** Turns the native callback's arrays into logs, and keeps the epoch-end ones. */
  static final class FitListener {
    private final FitCallback callback;
    private final List<Map<String, Double>> history = new ArrayList<>();

    FitListener(FitCallback callback) {
      this.callback = callback;
    }

    // Called from model_jni.cc.
    boolean onProgress(int epoch, long step, boolean epochEnd, String[] names, double[] values) {
      Map<String, Double> logs = new LinkedHashMap<>();
      for (int i = 0; i < names.length; i++) {
        logs.put(names[i], values[i]);
      }
      logs = Collections.unmodifiableMap(logs);
      if (epochEnd) {
        history.add(logs);
      }
      return callback != null && callback.onProgress(epoch, step, epochEnd, logs);
    }

    List<Map<String, Double>> history() {
      return Collections.unmodifiableList(history);
    }
  }

  // Layer natives, called by the Layers factories.
  static native void addInput(long model, long[] shape, int dataType);

  static native void addDense(
      long model, long units, String activation, String[] keys, Object[] values);

  static native void addConv2D(
      long model, long filters, long[] kernelSize, String activation, String[] keys, Object[] values);

  static native void addPooling2D(
      long model, boolean average, long[] poolSize, String[] keys, Object[] values);

  static native void addGlobalAveragePooling2D(long model);

  static native void addFlatten(long model);

  static native void addReshape(long model, long[] targetShape);

  static native void addDropout(long model, double rate, String[] keys, Object[] values);

  static native void addActivation(long model, String activation, String[] keys, Object[] values);

  static native void addBatchNormalization(long model, String[] keys, Object[] values);

  static native void addLayerFromKerasJson(long model, String json);

  private static native long nativeSequential(long strategy, String name);

  private static native long nativeFromKerasJson(long strategy, String json);

  private static native void delete(long pointer);

  private static native String nativeSummary(long model);

  private static native void nativeCompile(
      long model,
      String optimizer,
      String[] optimizerKeys,
      Object[] optimizerValues,
      String loss,
      String[] lossKeys,
      Object[] lossValues,
      String[] metrics);

  private static native float nativeTrainStep(long model, long x, long y);

  private static native String[] nativeMetricNames(long model);

  private static native float[] nativeMetricValues(long model);

  private static native void nativeResetMetrics(long model);

  private static native long nativePredict(long model, long x, long batchSize);

  private static native void nativeFit(long model, long dataset, int epochs, FitListener listener);

  private static native void nativeFitWithOptions(
      long model,
      long dataset,
      long validationData,
      String[] keys,
      Object[] values,
      FitListener listener);

  private static native double[] nativeEvaluate(long model, long dataset);

  private static native double[] nativeEvaluateWithOptions(
      long model, long dataset, String[] keys, Object[] values);

  private static native String nativeSaveCheckpoint(long model, String filePrefix);

  private static native void nativeRestoreCheckpoint(long model, String prefix);

  private static native void nativeExportSavedModel(long model, String exportDir);
}
