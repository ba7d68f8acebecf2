package org.tfd;

import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Paths;
import org.junit.jupiter.api.Test;

/**
 * Creating and freeing many tensors keeps resident memory flat, whether
 * they are closed or left to the Cleaner. Each tensor holds 16 KiB of
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

  private static void churn(int n, boolean close) {
    float[] values = new float[4096];
    for (int i = 0; i < n; i++) {
      values[0] = i;
      Tensor t = Tensor.create(values);
      if (t.numElements() != 4096) throw new AssertionError(t);
      if (close) {
        t.close();
      } else if (i % 500 == 0) {
        System.gc();
      }
    }
  }

  private static void check(String what, boolean close) throws IOException {
    churn(ITERATIONS / 10, close); // warm up: heap, allocator caches, JIT
    System.gc();
    long before = residentBytes();
    churn(ITERATIONS, close);
    System.gc();
    long after = residentBytes();
    System.out.printf(
        "%s: %d tensors of 16 KiB, resident %d KiB -> %d KiB (%+d KiB)%n",
        what, ITERATIONS, before / 1024, after / 1024, (after - before) / 1024);
    assertTrue(
        after - before < LEAKED_IF_ALL_KEPT / 4,
        what + ": resident memory grew by " + (after - before) + " bytes");
  }

  @Test
  void closedTensorsAreFreed() throws IOException {
    check("close()", true);
  }

  @Test
  void unreachableTensorsAreFreedByTheCleaner() throws IOException {
    check("Cleaner", false);
  }
}
