package org.tfd.examples;

import java.util.List;
import java.util.Map;
import org.tfd.DataType;
import org.tfd.Dataset;
import org.tfd.Layers;
import org.tfd.Model;
import org.tfd.Options;
import org.tfd.Strategy;

/** Trains the Fashion-MNIST MLP under MirroredStrategy on a slice of the data. */
public final class TrainExample {
  public static void main(String[] args) {
    String data = "/usr/share/datasets/fashion-mnist/";
    try (Strategy mirrored = Strategy.mirrored(2);
        Model model = Model.sequential(mirrored, "mlp");
        Dataset train = Dataset.fromIdx(
            data + "train-images-idx3-ubyte.gz", data + "train-labels-idx1-ubyte.gz", 1.0 / 255);
        Dataset slice = train.take(1024);
        Dataset batches = slice.batch(64)) {
      model.add(Layers.input(DataType.FLOAT, 28, 28))
          .add(Layers.flatten())
          .add(Layers.dense(128, "relu"))
          .add(Layers.dense(10, null));
      model.compile("adam", null, "sparse_categorical_crossentropy",
          Options.create().set("from_logits", true), "accuracy");
      List<Map<String, Double>> history = model.fit(batches, 2, (epoch, step, end, logs) -> false);
      System.out.println("replicas: " + mirrored.numReplicas());
      System.out.println("epochs: " + history.size());
      System.out.println("accuracy improved: "
          + (history.get(1).get("accuracy") > history.get(0).get("accuracy")));
    }
  }
}
