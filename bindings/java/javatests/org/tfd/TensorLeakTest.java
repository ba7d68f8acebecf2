package org.tfd;

import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assumptions.assumeFalse;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Paths;
import java.util.Arrays;
import java.util.function.IntFunction;
import org.junit.jupiter.api.Test;

/**
 * Creating and freeing many tensors keeps resident memory flat, whether
 * they are closed or left to the Cleaner, STRING tensors with strings the
 * tensor owns included. Each tensor holds 16 KiB of
 * native memory, so a leak of the native side shows within a few thousand
 * iterations. The iteration count comes from -Dorg.tfd.leak.iterations
 * (default 20000) for longer runs by hand.
 */
class TensorLeakTest {
  private static final int ITERATIONS = Integer.getInteger("org.tfd.leak.iterations", 20000);
  private static final long LEAKED_IF_ALL_KEPT = ITERATIONS * 16L * 1024;

  private static long residentBytes() throws IOException {
    for (String line : Files.readAllLines(Paths.get("/proc/self/status"))) {
      if (line.startsWith("VmRSS:")) {
        return Long.parseLong(line.replaceAll("[^0-9]", "")) * 1024;
      }
    }
    throw new IOException("no VmRSS in /proc/self/status");
  }

  // 16 KiB of floats.
  private static Tensor floats(int i) {
    float[] values = new float[4096];
    values[0] = i;
    return Tensor.create(values);
  }

  // 16 strings of 1 KiB: 16 KiB of LARGE TF_TStrings the tensor frees.
  private static final String KIB = "x".repeat(1024);

  private static Tensor strings(int i) {
    String[] values = new String[16];
    Arrays.fill(values, KIB);
    values[0] = i + KIB.substring(Integer.toString(i).length());
    return Tensor.of(values);
  }

  private static void churn(int n, boolean close, IntFunction<Tensor> make) {
    for (int i = 0; i < n; i++) {
      Tensor t = make.apply(i);
      if (t.numElements() == 0) throw new AssertionError(t);
      if (close) {
        t.close();
      } else if (i % 500 == 0) {
        System.gc();
      }
    }
  }

  private static void check(String what, boolean close, IntFunction<Tensor> make)
      throws IOException {
    churn(ITERATIONS / 10, close, make); // warm up: heap, allocator caches, JIT
    System.gc();
    long before = residentBytes();
    churn(ITERATIONS, close, make);
    System.gc();
    long after = residentBytes();
    System.out.printf(
        "%s: %d tensors of 16 KiB, resident %d KiB -> %d KiB (%+d KiB)%n",
        what, ITERATIONS, before / 1024, after / 1024, (after - before) / 1024);
    // AddressSanitizer (-Dorg.tfd.asan=true, set by the test runner under
    // --config=asan) keeps freed memory resident to catch uses after free:
    // the churn above ran under its checks, and the bound does not hold.
    assumeFalse(
        Boolean.getBoolean("org.tfd.asan"),
        "the resident-memory bound does not hold under AddressSanitizer");
    assertTrue(
        after - before < LEAKED_IF_ALL_KEPT / 4,
        what + ": resident memory grew by " + (after - before) + " bytes");
  }

  @Test
  void closedTensorsAreFreed() throws IOException {
    check("close()", true, TensorLeakTest::floats);
  }

  @Test
  void unreachableTensorsAreFreedByTheCleaner() throws IOException {
    check("Cleaner", false, TensorLeakTest::floats);
  }

  @Test
  void closedStringTensorsAreFreed() throws IOException {
    check("STRING close()", true, TensorLeakTest::strings);
  }
}
