package org.tfd;

/**
 * Keras's mixed precision (tf.keras.mixed_precision): the global dtype
 * policy that layers and models take when they are made.
 *
 * <p>A policy names the dtype a layer computes in and the dtype of its
 * variables: "float32" (the default), "mixed_float16" or "mixed_bfloat16"
 * (16-bit compute, float32 variables), or a floating dtype name for both.
 * The global policy is process-wide and thread-safe; it is read when a
 * layer or model is made, so set it before building the model. A layer's
 * own {@code "dtype"} option overrides it for that layer. Compiling a model
 * whose policy is mixed_float16 wraps the optimizer in a dynamic loss-scale
 * optimizer, as Keras's compile() does ({@link Model#lossScale()}).
 *
 * <pre>{@code
 * MixedPrecision.setGlobalPolicy("mixed_bfloat16");
 * try (Model model = Model.sequential(null, "mlp")) {
 *   model.add(Layers.input(DataType.FLOAT, 4))
 *       .add(Layers.dense(16, "relu"))                                     // bfloat16
 *       .add(Layers.dense(3, null, Options.create().set("dtype", "float32")));
 * } finally {
 *   MixedPrecision.setGlobalPolicy("float32");
 * }
 * }</pre>
 */
public final class MixedPrecision {
  static {
    NativeLibrary.load();
  }

  private MixedPrecision() {}

  /**
   * Keras's set_global_policy(name); null means Keras's None (float32).
   * On an exception the policy is unchanged.
   *
   * @throws InvalidArgumentException for a name that is no policy (the
   *     message names the valid ones) or a policy that does not compute in
   *     floating point
   */
  public static void setGlobalPolicy(String name) {
    nativeSetGlobalPolicy(name);
  }

  /** The global policy's name (Keras's global_policy().name). */
  public static String globalPolicy() {
    return nativeGlobalPolicy();
  }

  private static native void nativeSetGlobalPolicy(String name);

  private static native String nativeGlobalPolicy();

  // Model's natives, called by Model.lossScale() and friends.
  static native float lossScale(long model);

  static native long lossScaleGoodSteps(long model);

  static native String dtypePolicy(long model);
}
