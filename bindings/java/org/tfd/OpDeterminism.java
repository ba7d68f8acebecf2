package org.tfd;

/**
 * Op determinism, process-wide: TensorFlow's
 * {@code tf.config.experimental.enable_op_determinism()} and the
 * {@code TF_DETERMINISTIC_OPS} environment variable (TFD_EnableOpDeterminism).
 * With it on, every op either gives bit-identical results run to run for
 * the same inputs on the same hardware, or throws {@link UnimplementedException}
 * saying it has no deterministic implementation. The process starts with
 * {@code TF_DETERMINISTIC_OPS} ("1" or "true" turn it on). Thread-safe; a
 * change applies to ops started after the call.
 *
 * <pre>{@code
 * OpDeterminism.setEnabled(true);
 * try (Model model = ...) { ... train with fixed seeds ... }
 * }</pre>
 */
public final class OpDeterminism {
  static {
    NativeLibrary.load();
  }

  private OpDeterminism() {}

  /** Turns op determinism on or off, replacing what the environment or an earlier call said. */
  public static void setEnabled(boolean enabled) {
    nativeSetEnabled(enabled);
  }

  /** Whether op determinism is on. */
  public static boolean isEnabled() {
    return nativeIsEnabled();
  }

  private static native void nativeSetEnabled(boolean enabled);

  private static native boolean nativeIsEnabled();
}
