package org.tfd.examples;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import org.junit.jupiter.api.Test;

/** Runs the examples as a user would and checks what they print. */
class ExamplesTest {
  private static String run(Runnable main) {
    ByteArrayOutputStream bytes = new ByteArrayOutputStream();
    PrintStream stdout = System.out;
    System.setOut(new PrintStream(bytes, true, StandardCharsets.UTF_8));
    try {
      main.run();
    } finally {
      System.setOut(stdout);
    }
    return bytes.toString(StandardCharsets.UTF_8);
  }

  @Test
  void tensorExample() {
    assertEquals(
        "shape: [2, 3] type: FLOAT\n"
            + "value: [[1.0, 2.0, 3.0], [4.0, 5.0, 6.0]]\n"
            + "code: INVALID_ARGUMENT\n",
        run(() -> TensorExample.main(new String[0])));
  }

  @Test
  void trainExample() {
    assertEquals(
        "replicas: 2\nepochs: 2\naccuracy improved: true\n",
        run(() -> TrainExample.main(new String[0])));
  }

  @Test
  void serveExample() {
    assertEquals(
        "served shape: [1, 10]\nsame as the model: true\n",
        run(() -> {
          try {
            ServeExample.main(new String[0]);
          } catch (Exception e) {
            throw new AssertionError(e);
          }
        }));
  }
}
