package org.tfd;

/** Versions of the native library the binding runs on. */
public final class Tfd {
  static {
    NativeLibrary.load();
  }

  private Tfd() {}

  /** tfd's semantic version (TFD_Version()), e.g. "0.1.0". */
  public static String version() {
    return nativeVersion();
  }

  /** The TensorFlow C API version implemented (TF_Version()), e.g. "2.21.0+tfd.0.1.0". */
  public static String tensorFlowVersion() {
    return nativeTensorFlowVersion();
  }

  private static native String nativeVersion();

  private static native String nativeTensorFlowVersion();
}
