package org.tfd.examples;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Arrays;
import org.tfd.DataType;
import org.tfd.Layers;
import org.tfd.Model;
import org.tfd.SavedModelBundle;
import org.tfd.Signature;
import org.tfd.Tensor;

/** Exports a model as a SavedModel and serves it through a Session. */
public final class ServeExample {
  public static void main(String[] args) throws Exception {
    Path dir = Files.createTempDirectory("tfd_example").resolve("mlp/1");
    float[][] image = new float[1][784];
    Arrays.fill(image[0], 0.5f);
    try (Model model = Model.sequential(null, "mlp");
        Tensor x = Tensor.create(image)) {
      model.add(Layers.input(DataType.FLOAT, 784)).add(Layers.dense(10, "softmax"));
      model.exportSavedModel(dir.toString());

      try (SavedModelBundle bundle = SavedModelBundle.load(dir.toString(), "serve");
          Tensor expected = model.predict(x)) {
        Signature serving = bundle.signatures().get("serving_default");
        String input = serving.inputs().values().iterator().next().name();
        String output = serving.outputs().values().iterator().next().name();
        try (Tensor y = bundle.session().runner().feed(input, x).fetch(output).run().get(0)) {
          float[][] served = y.copyTo(new float[1][10]);
          System.out.println("served shape: " + Arrays.toString(y.shape()));
          System.out.println("same as the model: "
              + Arrays.equals(served[0], expected.copyTo(new float[1][10])[0]));
        }
      }
    }
  }
}
