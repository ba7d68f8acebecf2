package org.tfd;

/**
 * The loss of one step a {@link Coordinator} scheduled, as TensorFlow's
 * RemoteValue: {@link #fetch} waits for the step. It may be fetched from
 * any thread, any number of times; closing it does not cancel the step,
 * and it stays valid after its coordinator is closed.
 */
public final class RemoteValue implements AutoCloseable {
  static {
    NativeLibrary.load();
  }

  private final NativeHandle handle;

  RemoteValue(long pointer) {
    handle = new NativeHandle(this, pointer, RemoteValue::delete, "RemoteValue");
  }

  /**
   * Waits for the step (bounded by the strategy's step timeout) and returns
   * its loss: the mean over its batch (0 for an empty batch).
   *
   * @throws CancelledException when an earlier step failed first
   * @throws TfdException the step's own error
   */
  public synchronized float fetch() {
    return nativeFetch(handle.get());
  }

  /** Frees the value; idempotent. Waits for a fetch in flight. */
  @Override
  public synchronized void close() {
    handle.close();
  }

  private static native float nativeFetch(long value);

  private static native void delete(long pointer);
}
