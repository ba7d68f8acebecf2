package org.tfd;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Arrays;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** Checkpoints through the binding: what one model saves, another restores. */
class SavingTest {
  private static Model mlp() {
    Model model = Model.sequential(null, "mlp");
    model.add(Layers.input(DataType.FLOAT, 4)).add(Layers.dense(8, "relu")).add(Layers.dense(3, null));
    model.compile("adam", null, "sparse_categorical_crossentropy",
        Options.create().set("from_logits", true));
    return model;
  }

  private static float[][] predict(Model model, Tensor x) {
    try (Tensor y = model.predict(x)) {
      return y.copyTo(new float[4][3]);
    }
  }

  @Test
  void aRestoredModelPredictsAsTheSavedOne(@TempDir Path dir) {
    try (Model trained = mlp();
        Model fresh = mlp();
        Tensor x = Tensor.create(new float[][] {{1, 2, 3, 4}, {0, 1, 0, 1}, {-1, 0, 2, 1}, {3, 3, 0, 0}});
        Tensor y = Tensor.create(new int[] {0, 1, 2, 0})) {
      trained.trainStep(x, y);
      String prefix = trained.saveCheckpoint(dir.resolve("ckpt").toString());
      assertTrue(prefix.endsWith("ckpt-1"), prefix);
      assertTrue(Files.exists(Path.of(prefix + ".index")), prefix);
      float[][] expected = predict(trained, x);
      assertFalse(Arrays.deepEquals(expected, predict(fresh, x)), "two fresh inits agree");
      fresh.restoreCheckpoint(prefix);
      float[][] restored = predict(fresh, x);
      for (int i = 0; i < 4; i++) {
        assertArrayEquals(expected[i], restored[i]);
      }
      assertThrows(NotFoundException.class,
          () -> fresh.restoreCheckpoint(dir.resolve("no_such_ckpt-1").toString()));
      assertThrows(InvalidArgumentException.class, () -> fresh.saveCheckpoint(null));
    }
  }
}
