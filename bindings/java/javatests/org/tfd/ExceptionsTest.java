package org.tfd;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.lang.reflect.InvocationTargetException;
import java.lang.reflect.Method;
import org.junit.jupiter.api.Test;

class ExceptionsTest {
  private static void expect(Code code, Class<? extends TfdException> type) {
    TfdException e = TfdException.forCode(code.value(), "message for " + code);
    assertSame(type, e.getClass(), code.toString());
    assertEquals(code, e.code());
    assertEquals("message for " + code, e.getMessage());
  }

  @Test
  void everyCodeMapsToItsFamily() {
    expect(Code.CANCELLED, CancelledException.class);
    expect(Code.DEADLINE_EXCEEDED, CancelledException.class);
    expect(Code.UNKNOWN, InternalException.class);
    expect(Code.INVALID_ARGUMENT, InvalidArgumentException.class);
    expect(Code.NOT_FOUND, NotFoundException.class);
    expect(Code.ALREADY_EXISTS, AlreadyExistsException.class);
    expect(Code.PERMISSION_DENIED, PermissionDeniedException.class);
    expect(Code.UNAUTHENTICATED, PermissionDeniedException.class);
    expect(Code.RESOURCE_EXHAUSTED, ResourceExhaustedException.class);
    expect(Code.FAILED_PRECONDITION, FailedPreconditionException.class);
    expect(Code.ABORTED, FailedPreconditionException.class);
    expect(Code.OUT_OF_RANGE, OutOfRangeException.class);
    expect(Code.UNIMPLEMENTED, UnimplementedException.class);
    expect(Code.INTERNAL, InternalException.class);
    expect(Code.UNAVAILABLE, UnavailableException.class);
    expect(Code.DATA_LOSS, InternalException.class);
  }

  @Test
  void oddCodesStayErrors() {
    TfdException ok = TfdException.forCode(0, "x");
    assertEquals(Code.INTERNAL, ok.code());
    assertEquals(Code.UNKNOWN, TfdException.forCode(1234, "y").code());
  }

  // The JNI layer checks its arguments itself, so a caller that skips the
  // Java checks still gets an exception (raised from native code), not a crash.
  private static Throwable callAllocate(int dtype, long[] shape, byte[] data) throws Exception {
    Method allocate =
        Tensor.class.getDeclaredMethod("allocate", int.class, long[].class, byte[].class);
    allocate.setAccessible(true);
    InvocationTargetException e =
        assertThrows(InvocationTargetException.class, () -> allocate.invoke(null, dtype, shape, data));
    return e.getCause();
  }

  @Test
  void nativeGlueRaisesMappedExceptions() throws Exception {
    Throwable size = callAllocate(1, new long[] {2}, new byte[7]);
    assertSame(InvalidArgumentException.class, size.getClass());
    assertTrue(size.getMessage().contains("needs 8 bytes, got 7"), size.getMessage());
    assertSame(InvalidArgumentException.class, callAllocate(7, new long[] {1}, new byte[1]).getClass());
    assertSame(InvalidArgumentException.class, callAllocate(1, new long[] {-2}, new byte[0]).getClass());
    assertSame(InvalidArgumentException.class, callAllocate(1, null, new byte[0]).getClass());
    assertSame(InvalidArgumentException.class, callAllocate(1, new long[] {0}, null).getClass());
    assertSame(
        ResourceExhaustedException.class,
        callAllocate(1, new long[] {1L << 20, 1L << 20}, new byte[0]).getClass());
  }
}
