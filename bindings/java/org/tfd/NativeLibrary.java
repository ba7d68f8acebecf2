package org.tfd;

/**
 * Loads libtfd_jni.so (which links libtfd.so) once per class loader.
 *
 * <p>The library is looked up on java.library.path, or taken from the file
 * named by the system property {@code org.tfd.jni.library} when it is set.
 */
final class NativeLibrary {
  private static final String PATH_PROPERTY = "org.tfd.jni.library";

  static {
    String path = System.getProperty(PATH_PROPERTY);
    if (path != null && !path.isEmpty()) {
      System.load(path);
    } else {
      System.loadLibrary("tfd_jni");
    }
  }

  private NativeLibrary() {}

  /** Runs the static initializer; every class with native methods calls it first. */
  static void load() {}
}
