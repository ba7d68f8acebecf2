package org.tfd;

import java.lang.ref.Cleaner;
import java.util.function.LongConsumer;

/**
 * Owns one native pointer: frees it on close(), or through a Cleaner once
 * its owner is unreachable, whichever comes first, and exactly once.
 *
 * <p>The deleter must not refer to the owner (a static method reference is
 * right), or the owner would never become unreachable. Not thread-safe:
 * closing while another thread uses the handle is the caller's bug.
 */
final class NativeHandle implements AutoCloseable {
  private static final Cleaner CLEANER = Cleaner.create();

  private final Releaser releaser;
  private final Cleaner.Cleanable cleanable;

  NativeHandle(Object owner, long pointer, LongConsumer deleter, String what) {
    this.releaser = new Releaser(pointer, deleter, what);
    this.cleanable = CLEANER.register(owner, releaser);
  }

  /** The pointer; FailedPreconditionException once closed. */
  long get() {
    long p = releaser.pointer;
    if (p == 0) {
      throw new FailedPreconditionException(
          Code.FAILED_PRECONDITION, releaser.what + " is closed");
    }
    return p;
  }

  /**
   * The pointer, which the caller now owns: the handle is closed without
   * freeing it. FailedPreconditionException once closed.
   */
  long release() {
    long p = get();
    releaser.pointer = 0;
    cleanable.clean(); // Frees nothing now; unregisters the Cleaner's action.
    return p;
  }

  @Override
  public void close() {
    cleanable.clean();
  }

  private static final class Releaser implements Runnable {
    volatile long pointer;
    final LongConsumer deleter;
    final String what;

    Releaser(long pointer, LongConsumer deleter, String what) {
      this.pointer = pointer;
      this.deleter = deleter;
      this.what = what;
    }

    @Override
    public void run() {
      long p = pointer;
      pointer = 0;
      if (p != 0) {
        deleter.accept(p);
      }
    }
  }
}
