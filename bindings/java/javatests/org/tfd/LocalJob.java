package org.tfd;

import java.io.IOException;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.util.ArrayList;
import java.util.List;

/**
 * What the parameter-server tests share: a job of one chief, two workers
 * and one ps on ports of 127.0.0.1, every task in this JVM and told its
 * place by the "tf_config" option, and the model every task builds.
 */
final class LocalJob {
  private LocalJob() {}

  /** Ports free on 127.0.0.1 a moment ago, all distinct. */
  static int[] freePorts(int n) throws IOException {
    InetAddress loopback = InetAddress.getByName("127.0.0.1");
    List<ServerSocket> sockets = new ArrayList<>();
    try {
      int[] ports = new int[n];
      for (int i = 0; i < n; i++) {
        ServerSocket socket = new ServerSocket(0, 1, loopback);
        sockets.add(socket);
        ports[i] = socket.getLocalPort();
      }
      return ports;
    } finally {
      for (ServerSocket socket : sockets) {
        socket.close();
      }
    }
  }

  /** Task {@code type}:{@code index} of a job of one chief, two workers and one ps on ports. */
  static Options task(int[] ports, String type, int index) {
    String tfConfig =
        String.format(
            "{\"cluster\": {\"chief\": [\"127.0.0.1:%d\"], "
                + "\"worker\": [\"127.0.0.1:%d\", \"127.0.0.1:%d\"], \"ps\": [\"127.0.0.1:%d\"]}, "
                + "\"task\": {\"type\": \"%s\", \"index\": %d}}",
            ports[0], ports[1], ports[2], ports[3], type, index);
    return Options.create().set("tf_config", tfConfig);
  }

  /**
   * The same model in every task, compiled with {@code metrics}; named
   * layers, so the tasks of one process agree.
   */
  static Model namedMlp(Strategy strategy, String... metrics) {
    Model model = Model.sequential(strategy, "mlp");
    model
        .add(Layers.input(DataType.FLOAT, 4))
        .add(Layers.dense(16, "relu", Options.create().set("name", "hidden")))
        .add(Layers.dense(3, null, Options.create().set("name", "logits")));
    model.compile(
        "sgd",
        Options.create().set("learning_rate", 0.1),
        "sparse_categorical_crossentropy",
        Options.create().set("from_logits", true),
        metrics);
    return model;
  }

  /**
   * {@code n} rows of 4 features (differing with {@code seed}) labelled by
   * the largest of the first three, one element per row.
   */
  static Dataset rows(int n, int seed) {
    float[][] x = new float[n][4];
    int[] y = new int[n];
    for (int i = 0; i < n; i++) {
      for (int j = 0; j < 4; j++) {
        x[i][j] = (float) Math.sin(1.3 * seed + 1.7 * i + 0.9 * j + 0.3 * i * j);
      }
      y[i] = x[i][0] >= x[i][1] && x[i][0] >= x[i][2] ? 0 : x[i][1] >= x[i][2] ? 1 : 2;
    }
    try (Tensor features = Tensor.create(x);
        Tensor labels = Tensor.create(y)) {
      return Dataset.fromTensors(features, labels);
    }
  }
}
