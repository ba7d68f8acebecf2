package org.tfd;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** SavedModelBundle and Session.Runner on a small exported model. */
class SessionTest {
  // A Dense(3) model over 4 features, exported to dir; returns its
  // (input name, output name).
  private static String[] export(Path dir) {
    try (Model model = Model.sequential(null, "small")) {
      model.add(Layers.input(DataType.FLOAT, 4)).add(Layers.dense(3, null));
      model.exportSavedModel(dir.toString());
    }
    try (SavedModelBundle bundle = SavedModelBundle.load(dir.toString(), "serve")) {
      Signature serving = bundle.signatures().get("serving_default");
      return new String[] {
        serving.inputs().values().iterator().next().name(),
        serving.outputs().values().iterator().next().name()
      };
    }
  }

  @Test
  void runnerFeedsAndFetchesByName(@TempDir Path dir) {
    String[] names = export(dir);
    try (SavedModelBundle bundle = SavedModelBundle.load(dir.toString(), "serve");
        Tensor x = Tensor.create(new float[][] {{1, 2, 3, 4}, {0, 0, 0, 0}})) {
      assertTrue(bundle.metaGraphDef().length > 0);
      List<Tensor> out =
          bundle.session().runner().feed(names[0], x).fetch(names[1]).fetch(names[1]).run();
      try (Tensor a = out.get(0);
          Tensor b = out.get(1)) {
        assertArrayEquals(new long[] {2, 3}, a.shape());
        float[][] first = a.copyTo(new float[2][3]);
        assertArrayEquals(first[1], new float[3], "a zero input gives the zero bias");
        assertArrayEquals(first[0], b.copyTo(new float[2][3])[0]);
      }
      String outputOp = names[1].substring(0, names[1].lastIndexOf(':'));
      assertTrue(bundle.session().runner().feed(names[0], x).addTarget(outputOp).run().isEmpty());
      assertThrows(
          InvalidArgumentException.class,
          () -> bundle.session().runner().feed(names[0], x).addTarget("no_such_op").run());
    }
  }

  @Test
  void badRunsRaise(@TempDir Path dir) {
    String[] names = export(dir);
    SavedModelBundle bundle = SavedModelBundle.load(dir.toString(), "serve");
    Session session = bundle.session();
    try (Tensor x = Tensor.create(new float[][] {{1, 2, 3, 4}});
        Tensor ints = Tensor.create(new int[][] {{1, 2, 3, 4}})) {
      assertThrows(
          InvalidArgumentException.class,
          () -> session.runner().feed("no_such_op", x).fetch(names[1]).run());
      assertThrows(
          InvalidArgumentException.class,
          () -> session.runner().feed(names[0] + ":x", x));
      assertThrows(InvalidArgumentException.class, () -> session.runner().feed(names[0], null));
      TfdException wrongType =
          assertThrows(
              TfdException.class, () -> session.runner().feed(names[0], ints).fetch(names[1]).run());
      assertEquals(Code.INVALID_ARGUMENT, wrongType.code(), wrongType.getMessage());
      bundle.close();
      bundle.close();
      assertThrows(
          FailedPreconditionException.class,
          () -> session.runner().feed(names[0], x).fetch(names[1]).run());
    }
  }

  @Test
  void loadingChecksItsArguments(@TempDir Path dir) {
    assertThrows(InvalidArgumentException.class, () -> SavedModelBundle.load(null, "serve"));
    assertThrows(
        InvalidArgumentException.class, () -> SavedModelBundle.load(dir.toString(), (String[]) null));
    assertThrows(
        InvalidArgumentException.class, () -> SavedModelBundle.load(dir.toString(), "serve", null));
    // An empty directory holds no SavedModel.
    assertThrows(NotFoundException.class, () -> SavedModelBundle.load(dir.toString(), "serve"));
  }
}
