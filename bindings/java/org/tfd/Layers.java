package org.tfd;

import java.util.Arrays;

/**
 * Keras layers for {@link Model#add}. Arguments not in a factory's
 * signature go in {@link Options} with Keras's names ("use_bias",
 * "kernel_initializer", "strides", "padding", "name", ...). Activations are
 * Keras names ("relu", "softmax", ...) or null for linear.
 *
 * <pre>{@code
 * model.add(Layers.input(DataType.FLOAT, 28, 28))
 *     .add(Layers.flatten())
 *     .add(Layers.dense(128, "relu"))
 *     .add(Layers.dense(10, null));
 * }</pre>
 */
public final class Layers {
  private Layers() {}

  /** The input of one example (no batch dimension); must come first. */
  public static Layer input(DataType dataType, long... shape) {
    if (dataType == null || shape == null) {
      throw new InvalidArgumentException("input needs a data type and a shape");
    }
    long[] s = shape.clone();
    return new Layer(
        "Input(" + dataType + ", " + Arrays.toString(s) + ")",
        m -> Model.addInput(m, s, dataType.value()));
  }

  public static Layer dense(long units, String activation) {
    return dense(units, activation, null);
  }

  public static Layer dense(long units, String activation, Options options) {
    return new Layer(
        "Dense(" + units + ", " + activation + ")",
        m -> Model.addDense(m, units, activation, Options.keysOf(options), Options.valuesOf(options)));
  }

  /** kernelSize: one or two values. */
  public static Layer conv2D(long filters, long[] kernelSize, String activation, Options options) {
    long[] k = kernelSize == null ? null : kernelSize.clone();
    return new Layer(
        "Conv2D(" + filters + ", " + Arrays.toString(k) + ", " + activation + ")",
        m -> Model.addConv2D(
            m, filters, k, activation, Options.keysOf(options), Options.valuesOf(options)));
  }

  /** poolSize: one or two values, or null for 2x2. */
  public static Layer maxPooling2D(long[] poolSize, Options options) {
    long[] p = poolSize == null ? new long[0] : poolSize.clone();
    return new Layer(
        "MaxPooling2D(" + Arrays.toString(p) + ")",
        m -> Model.addPooling2D(m, false, p, Options.keysOf(options), Options.valuesOf(options)));
  }

  public static Layer averagePooling2D(long[] poolSize, Options options) {
    long[] p = poolSize == null ? new long[0] : poolSize.clone();
    return new Layer(
        "AveragePooling2D(" + Arrays.toString(p) + ")",
        m -> Model.addPooling2D(m, true, p, Options.keysOf(options), Options.valuesOf(options)));
  }

  public static Layer globalAveragePooling2D() {
    return new Layer("GlobalAveragePooling2D()", m -> Model.addGlobalAveragePooling2D(m));
  }

  public static Layer flatten() {
    return new Layer("Flatten()", m -> Model.addFlatten(m));
  }

  public static Layer reshape(long... targetShape) {
    long[] s = targetShape == null ? null : targetShape.clone();
    return new Layer("Reshape(" + Arrays.toString(s) + ")", m -> Model.addReshape(m, s));
  }

  /** rate in [0, 1); options: seed, noise_shape. */
  public static Layer dropout(double rate, Options options) {
    return new Layer(
        "Dropout(" + rate + ")",
        m -> Model.addDropout(m, rate, Options.keysOf(options), Options.valuesOf(options)));
  }

  public static Layer activation(String activation) {
    return activation(activation, null);
  }

  /**
   * Options: name, dtype. Keras's mixed-precision models end in
   * {@code activation("softmax", Options.create().set("dtype", "float32"))}.
   */
  public static Layer activation(String activation, Options options) {
    return new Layer(
        "Activation(" + activation + ")",
        m -> Model.addActivation(m, activation, Options.keysOf(options), Options.valuesOf(options)));
  }

  /** Options: axis, momentum, epsilon, center, scale, synchronized. */
  public static Layer batchNormalization(Options options) {
    return new Layer(
        "BatchNormalization()",
        m -> Model.addBatchNormalization(m, Options.keysOf(options), Options.valuesOf(options)));
  }

  /** Any layer tfd has, from its Keras JSON: {"class_name": "Conv1D", "config": {...}}. */
  public static Layer fromKerasJson(String layerJson) {
    return new Layer("Layer(" + layerJson + ")", m -> Model.addLayerFromKerasJson(m, layerJson));
  }
}
