package org.tfd;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The binding end to end: the Fashion-MNIST MLP trains one epoch (on a
 * slice of the data) under MirroredStrategy(2), is exported as a
 * SavedModel, loaded back through SavedModelBundle, and serves the
 * predictions the trained model makes, within 1e-6.
 */
class FashionMnistAcceptanceTest {
  private static final String DATA = "/usr/share/datasets/fashion-mnist/";
  private static final int EXAMPLES = 1024;
  private static final int GLOBAL_BATCH = 64;

  // 32 deterministic images with pixels in [0, 1).
  private static Tensor images() {
    float[][][] x = new float[32][28][28];
    long state = 12345;
    for (float[][] image : x) {
      for (float[] row : image) {
        for (int j = 0; j < 28; j++) {
          state = state * 6364136223846793005L + 1442695040888963407L;
          row[j] = (state >>> 40) / (float) (1L << 24);
        }
      }
    }
    return Tensor.create(x);
  }

  @Test
  void mirroredMlpServesTheTrainedModelsPredictions(@TempDir Path dir) {
    String exportDir = dir.resolve("fashion_mnist_mlp/1").toString();
    float[][] expected;
    try (Strategy mirrored = Strategy.mirrored(2);
        Model model = Model.sequential(mirrored, "fashion_mnist_mlp");
        Dataset train =
            Dataset.fromIdx(
                DATA + "train-images-idx3-ubyte.gz", DATA + "train-labels-idx1-ubyte.gz", 1.0 / 255);
        Dataset slice = train.take(EXAMPLES);
        Dataset batches = slice.batch(GLOBAL_BATCH);
        Tensor x = images()) {
      model
          .add(Layers.input(DataType.FLOAT, 28, 28))
          .add(Layers.flatten())
          .add(Layers.dense(128, "relu"))
          .add(Layers.dense(10, null));
      model.compile(
          "adam", null,
          "sparse_categorical_crossentropy", Options.create().set("from_logits", true),
          "accuracy");
      List<Map<String, Double>> history = model.fit(batches, 1, null);
      assertEquals(1, history.size());
      assertTrue(history.get(0).get("accuracy") > 0.3, "after one epoch: " + history.get(0));

      model.exportSavedModel(exportDir);
      try (Tensor logits = model.predict(x)) {
        expected = logits.copyTo(new float[32][10]);
      }
    }

    try (SavedModelBundle bundle = SavedModelBundle.load(exportDir, "serve");
        Tensor x = images()) {
      Signature serving = bundle.signatures().get("serving_default");
      assertEquals(1, serving.inputs().size(), serving.inputs().keySet().toString());
      assertEquals(1, serving.outputs().size(), serving.outputs().keySet().toString());
      String input = serving.inputs().values().iterator().next().name();
      String output = serving.outputs().values().iterator().next().name();
      List<Tensor> results = bundle.session().runner().feed(input, x).fetch(output).run();
      try (Tensor served = results.get(0)) {
        assertArrayEquals(new long[] {32, 10}, served.shape());
        float[][] got = served.copyTo(new float[32][10]);
        float maxDiff = 0;
        for (int i = 0; i < 32; i++) {
          assertArrayEquals(expected[i], got[i], 1e-6f, "example " + i);
          for (int j = 0; j < 10; j++) {
            maxDiff = Math.max(maxDiff, Math.abs(expected[i][j] - got[i][j]));
          }
        }
        System.out.println("served logits differ from the trained model's by at most " + maxDiff);
      }
      InvalidArgumentException e =
          assertThrows(
              InvalidArgumentException.class,
              () -> bundle.session().runner().feed("no_such_op", x).fetch(output).run());
      assertTrue(e.getMessage().contains("no_such_op"), e.getMessage());
    }
    assertThrows(NotFoundException.class, () -> SavedModelBundle.load(dir.resolve("missing").toString(), "serve"));
  }
}
