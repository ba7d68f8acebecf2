package org.tfd;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.tfd.LocalJob.freePorts;
import static org.tfd.LocalJob.namedMlp;
import static org.tfd.LocalJob.task;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

/**
 * A parameter-server job with every task in this JVM, over real gRPC on
 * 127.0.0.1, each task told its place by the "tf_config" option: one ps
 * (ParameterServer.start), two workers serving the model's steps
 * (Model.serveTrainSteps) and the chief's fit, whose loss goes down; then
 * the roles' errors and the servers' join and close.
 */
class ParameterServerTest {
  /**
   * A worker's data: 256 rows of 4 features (differing with {@code seed})
   * labelled by the largest of the first three, in batches of 16, for ever.
   */
  private static Dataset workerData(int seed) {
    try (Dataset rows = LocalJob.rows(256, seed);
        Dataset repeated = rows.repeat(-1)) {
      return repeated.batch(16);
    }
  }

  @Test
  void workersTrainTheChiefsModelThroughThePs() throws Exception {
    int[] ports = freePorts(4);
    Options psTask = task(ports, "ps", 0);
    try (ParameterServer ps = ParameterServer.start(psTask)) {
      List<AutoCloseable> workerParts = new ArrayList<>();
      List<ParameterServer> workers = new ArrayList<>();
      try {
        for (int w = 0; w < 2; w++) {
          Strategy strategy =
              Strategy.create(
                  "parameter_server", task(ports, "worker", w).set("connect_timeout_seconds", 10));
          workerParts.add(strategy);
          Model model = namedMlp(strategy);
          workerParts.add(model);
          try (Dataset data = workerData(w + 1)) {
            workers.add(model.serveTrainSteps(data));
          }
        }
        // The servers keep their models alive.
        for (AutoCloseable part : workerParts) {
          part.close();
        }

        Options chiefTask = task(ports, "chief", 0);
        try (Strategy chief = Strategy.create("ParameterServerStrategy", chiefTask);
            Model model = namedMlp(chief);
            Dataset unread = workerData(9)) { // The chief's data is the workers'.
          List<Map<String, Double>> history =
              model.fit(unread, FitOptions.builder().epochs(3).stepsPerEpoch(30).build(), null);
          assertEquals(3, history.size());
          double first = history.get(0).get("loss");
          double last = history.get(2).get("loss");
          assertTrue(last < 0.8 * first, "loss went from " + first + " to " + last);

          // The chief's model holds the ps's values: it evaluates as trained.
          Map<String, Double> evaluation =
              model.evaluate(unread, EvaluateOptions.builder().steps(4).build());
          assertTrue(evaluation.get("loss") < first, evaluation.toString());

          // The roles' errors.
          assertThrows(FailedPreconditionException.class, () -> model.serveTrainSteps(unread));
          assertThrows(InvalidArgumentException.class, () -> ParameterServer.start(chiefTask));
          assertThrows(
              InvalidArgumentException.class, () -> Strategy.create("parameter_server", psTask));
        }
        assertFalse(ps.join(0, TimeUnit.MILLISECONDS), "the ps stopped serving");
      } finally {
        for (ParameterServer worker : workers) {
          worker.close();
        }
        for (AutoCloseable part : workerParts) {
          part.close();
        }
      }
    }
  }

  @Test
  void joinBlocksUntilAnotherThreadCloses() throws Exception {
    int[] ports = freePorts(4);
    ParameterServer ps = ParameterServer.start(task(ports, "ps", 0));
    assertFalse(ps.join(100, TimeUnit.MILLISECONDS));
    Thread joiner =
        new Thread(() -> {
          try {
            ps.join();
          } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
          }
        });
    joiner.start();
    joiner.join(200);
    assertTrue(joiner.isAlive(), "join returned while the server runs");
    ps.close();
    joiner.join(10_000);
    assertFalse(joiner.isAlive(), "join did not return once the server was closed");
    assertTrue(ps.join(0, TimeUnit.MILLISECONDS));
    ps.close(); // Idempotent.

    // The port is free again: a new ps task binds it.
    try (ParameterServer again = ParameterServer.start(task(ports, "ps", 0))) {
      assertFalse(again.join(10, TimeUnit.MILLISECONDS));
    }
  }

  @Test
  void badServerCallsRaise() throws Exception {
    int[] ports = freePorts(4);
    assertThrows(
        UnimplementedException.class,
        () -> ParameterServer.start(task(ports, "ps", 0).set("no_such_option", 1)));
    assertThrows(
        InvalidArgumentException.class,
        () -> ParameterServer.start(Options.create().set("tf_config", "not json")));
    try (ParameterServer ps = ParameterServer.start(task(ports, "ps", 0))) {
      // The port is taken: a second ps task on it is refused.
      assertThrows(UnavailableException.class, () -> ParameterServer.start(task(ports, "ps", 0)));
      assertFalse(ps.join(0, TimeUnit.MILLISECONDS), "the ps stopped serving");
    }
    // A model under another strategy serves no steps.
    try (Model plain = namedMlp(null);
        Dataset data = workerData(1)) {
      assertThrows(FailedPreconditionException.class, () -> plain.serveTrainSteps(data));
      assertThrows(InvalidArgumentException.class, () -> plain.serveTrainSteps(null));
    }
  }
}
