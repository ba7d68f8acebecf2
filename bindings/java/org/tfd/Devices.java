package org.tfd;

/**
 * The process's default device: where ops run that no strategy replica or
 * GPU input places (TFD_SetDefaultDevice; the TFD_DEFAULT_DEVICE
 * environment variable says the same before the first op). Process-wide
 * and thread-safe; a new default applies to ops started after the call.
 *
 * <pre>{@code
 * Devices.setDefault("auto");  // GPU:0 when the library and machine have one
 * }</pre>
 */
public final class Devices {
  static {
    NativeLibrary.load();
  }

  private Devices() {}

  /**
   * Makes {@code name} the default device: null, "", "none" or "cpu" for
   * none (ops run on the host); "auto" for GPU:0 when the library was built
   * with CUDA and the machine has a GPU, else none; or a device name such as
   * "/device:GPU:0" or "GPU:1". On an exception the default is unchanged.
   *
   * @throws InvalidArgumentException naming {@code name} when it is not a
   *     device name or names a device this process does not have
   */
  public static void setDefault(String name) {
    nativeSetDefault(name);
  }

  private static native void nativeSetDefault(String name);
}
