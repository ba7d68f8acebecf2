package org.tfd;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.tfd.LocalJob.freePorts;
import static org.tfd.LocalJob.namedMlp;
import static org.tfd.LocalJob.task;

import java.lang.ref.WeakReference;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.function.Executable;

/**
 * A custom training loop under ParameterServerStrategy with every task in
 * this JVM, as in ParameterServerTest: one ps, two workers serving the
 * shards a DatasetFunction makes, and the chief scheduling steps through a
 * Coordinator and fetching their losses; then the bad calls' exceptions,
 * and ClusterTask and Dataset.shard.
 */
class CoordinatorTest {
  /** The rows every worker of the job shards. */
  private static final int SHARED_ROWS = 32;

  private static final int SHARED_SEED = 5;

  /** How ShardedRows fails when told to. */
  private enum Failure {
    NONE,
    DATA_LOSS,
    ILLEGAL_STATE,
    RETURNS_NULL,
    RETURNS_CLOSED
  }

  /**
   * The workers' dataset function: the worker's shard of the shared rows
   * as one batch, served again and again. Records the places it was given.
   */
  private static final class ShardedRows implements DatasetFunction {
    final List<int[]> contexts = new ArrayList<>();
    volatile Failure failure = Failure.NONE;

    @Override
    public Dataset create(int numInputPipelines, int inputPipelineId) {
      synchronized (contexts) {
        contexts.add(new int[] {numInputPipelines, inputPipelineId});
      }
      switch (failure) {
        case DATA_LOSS:
          throw TfdException.forCode(Code.DATA_LOSS.value(), "the worker's files are corrupt");
        case ILLEGAL_STATE:
          throw new IllegalStateException("no route to the files");
        case RETURNS_NULL:
          return null;
        default:
          break;
      }
      try (Dataset rows = LocalJob.rows(SHARED_ROWS, SHARED_SEED);
          Dataset shard = rows.shard(numInputPipelines, inputPipelineId);
          Dataset repeated = shard.repeat(-1)) {
        Dataset batches = repeated.batch(SHARED_ROWS / numInputPipelines, true);
        if (failure == Failure.RETURNS_CLOSED) {
          batches.close();
        }
        return batches;
      }
    }
  }

  /** The model's loss on shard {@code index} of two of the shared rows. */
  private static double shardLoss(Model model, int index) {
    try (Dataset rows = LocalJob.rows(SHARED_ROWS, SHARED_SEED);
        Dataset shard = rows.shard(2, index);
        Dataset batch = shard.batch(SHARED_ROWS / 2)) {
      return model.evaluate(batch).get("loss");
    }
  }

  @Test
  void customLoopSchedulesStepsOnTheWorkersShards() throws Exception {
    int[] ports = freePorts(4);
    ShardedRows rows = new ShardedRows();
    List<AutoCloseable> job = new ArrayList<>();
    try {
      job.add(ParameterServer.start(task(ports, "ps", 0)));
      List<Model> workerModels = new ArrayList<>();
      for (int w = 0; w < 2; w++) {
        Strategy strategy =
            Strategy.create(
                "parameter_server", task(ports, "worker", w).set("connect_timeout_seconds", 10));
        job.add(strategy);
        Model model = namedMlp(strategy, "accuracy");
        job.add(model);
        workerModels.add(model);
        job.add(model.serveTrainStepsFromFunction(rows));
      }
      Strategy chief = Strategy.create("parameter_server", task(ports, "chief", 0));
      job.add(chief);
      Model model = namedMlp(chief, "accuracy");
      job.add(model);

      double initial = shardLoss(model, 0);
      Coordinator coordinator = Coordinator.create(model);
      job.add(coordinator);
      // Each worker made its dataset for its own place among two.
      synchronized (rows.contexts) {
        rows.contexts.sort(Comparator.comparingInt(c -> c[1]));
        assertEquals(2, rows.contexts.size());
        assertArrayEquals(new int[] {2, 0}, rows.contexts.get(0));
        assertArrayEquals(new int[] {2, 1}, rows.contexts.get(1));
      }

      // Three "epochs" of 20 steps, each ended by a join, as TensorFlow's loop.
      List<Double> epochLosses = new ArrayList<>();
      for (int epoch = 0; epoch < 3; epoch++) {
        model.resetMetrics();
        List<RemoteValue> losses = new ArrayList<>();
        for (int step = 0; step < 20; step++) {
          losses.add(coordinator.schedule());
        }
        coordinator.join();
        assertTrue(coordinator.done());
        double sum = 0;
        for (RemoteValue loss : losses) {
          float value = loss.fetch();
          assertTrue(value > 0, "loss " + value);
          sum += value;
          loss.close();
        }
        epochLosses.add(sum / losses.size());
        // The metric counts every joined step of the epoch.
        Map<String, Float> metrics = model.metrics();
        float accuracy = metrics.get("accuracy");
        assertTrue(accuracy > 0 && accuracy <= 1, metrics.toString());
      }
      assertTrue(epochLosses.get(2) < 0.8 * epochLosses.get(0), epochLosses.toString());
      // After a join the chief's model holds the ps's values.
      double trained = shardLoss(model, 0);
      assertTrue(trained < 0.8 * initial, initial + " -> " + trained);

      // A value fetched before the join waits for its step; closing a
      // value does not cancel its step; a closed value is refused.
      RemoteValue first = coordinator.schedule();
      for (int step = 0; step < 5; step++) {
        coordinator.schedule().close();
      }
      assertTrue(first.fetch() > 0);
      first.close();
      first.close(); // Idempotent.
      assertThrows(FailedPreconditionException.class, first::fetch);
      coordinator.join();
      assertTrue(coordinator.done());

      // The roles' and arguments' errors.
      assertThrows(InvalidArgumentException.class, () -> Coordinator.create(null));
      assertThrows(
          FailedPreconditionException.class, () -> Coordinator.create(workerModels.get(0)));
      assertThrows(
          InvalidArgumentException.class,
          () -> workerModels.get(0).serveTrainStepsFromFunction(null));
      Model raw = Model.sequential(chief, "raw");
      assertThrows(FailedPreconditionException.class, () -> Coordinator.create(raw));
      raw.close();
      assertThrows(FailedPreconditionException.class, () -> Coordinator.create(raw));
      coordinator.close();
      coordinator.close(); // Idempotent.
      assertThrows(FailedPreconditionException.class, coordinator::schedule);
      assertThrows(FailedPreconditionException.class, coordinator::join);

      // A dataset function's failure fails the chief's Coordinator.create,
      // with its code, naming the worker's input pipeline.
      expectFailure(rows, model, Failure.DATA_LOSS, InternalException.class, Code.DATA_LOSS,
          "the worker's files are corrupt");
      expectFailure(rows, model, Failure.ILLEGAL_STATE, InternalException.class, Code.UNKNOWN,
          "IllegalStateException: no route to the files");
      expectFailure(rows, model, Failure.RETURNS_NULL, InvalidArgumentException.class,
          Code.INVALID_ARGUMENT, "returned null");
      expectFailure(rows, model, Failure.RETURNS_CLOSED, FailedPreconditionException.class,
          Code.FAILED_PRECONDITION, "Dataset is closed");
    } finally {
      for (int i = job.size() - 1; i >= 0; i--) {
        job.get(i).close();
      }
    }
  }

  private static void expectFailure(ShardedRows rows, Model model, Failure failure,
      Class<? extends TfdException> type, Code code, String text) {
    rows.failure = failure;
    Executable create = () -> Coordinator.create(model).close();
    TfdException e = assertThrows(type, create);
    assertEquals(code, e.code(), e.getMessage());
    assertTrue(e.getMessage().contains(text), e.getMessage());
    assertTrue(e.getMessage().contains("input pipeline id"), e.getMessage());
  }

  /** Runs the garbage collector until {@code reference} is cleared, for at most a few seconds. */
  private static boolean collected(WeakReference<?> reference) throws InterruptedException {
    for (int i = 0; i < 50 && reference.get() != null; i++) {
      System.gc();
      Thread.sleep(20);
    }
    return reference.get() == null;
  }

  @Test
  void aServerHoldsItsDatasetFunctionUntilClosed() throws Exception {
    int[] ports = freePorts(4);
    ParameterServer ps = ParameterServer.start(task(ports, "ps", 0));
    try (Strategy strategy =
            Strategy.create(
                "parameter_server", task(ports, "worker", 0).set("connect_timeout_seconds", 10));
        Model model = namedMlp(strategy)) {
      ShardedRows function = new ShardedRows();
      WeakReference<ShardedRows> weak = new WeakReference<>(function);
      ParameterServer worker = model.serveTrainStepsFromFunction(function);
      function = null; // The server's reference is the only one left.
      assertFalse(collected(weak), "the function was collected while its server serves");
      worker.close();
      assertTrue(collected(weak), "the server still holds the function once closed");
    } finally {
      ps.close();
    }
  }

  @Test
  void clusterTaskReadsTheTask() {
    int[] ports = {1, 2, 3, 4};
    ClusterTask chief = ClusterTask.resolve(task(ports, "chief", 0));
    assertEquals("chief:0", chief.toString());
    ClusterTask worker = ClusterTask.resolve(task(ports, "worker", 1));
    assertEquals("worker", worker.type());
    assertEquals(1, worker.index());
    assertEquals("ps:0", ClusterTask.resolve(task(ports, "ps", 0)).toString());
    // There are two workers.
    assertThrows(InvalidArgumentException.class,
        () -> ClusterTask.resolve(task(ports, "worker", 5)));
    assertThrows(UnimplementedException.class,
        () -> ClusterTask.resolve(task(ports, "worker", 0).set("num_replicas", 2)));
  }

  @Test
  void shardKeepsEveryNthElement() {
    try (Tensor labels = Tensor.create(new long[] {0, 1, 2, 3, 4, 5, 6, 7, 8, 9});
        Dataset rows = Dataset.fromTensors(labels);
        Dataset shard = rows.shard(3, 1);
        Dataset batch = shard.batch(10);
        DatasetIterator it = batch.iterator()) {
      Tensor[] element = it.next();
      try (Tensor kept = element[0]) {
        assertArrayEquals(new long[] {1, 4, 7}, kept.copyTo(new long[3]));
      }
      assertThrows(InvalidArgumentException.class, () -> rows.shard(0, 0));
      assertThrows(InvalidArgumentException.class, () -> rows.shard(3, 3));
      assertThrows(InvalidArgumentException.class, () -> rows.shard(3, -1));
    }
  }
}
