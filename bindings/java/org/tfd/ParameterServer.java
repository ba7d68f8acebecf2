package org.tfd;

import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.function.LongConsumer;

/**
 * A running server of a parameter-server job, as tf.distribute.Server is
 * for ParameterServerStrategy: on a ps task, the variable service of
 * {@link #start}; on a worker task, the training steps a model serves
 * ({@link Model#serveTrainSteps}, {@link Model#serveTrainStepsFromFunction}).
 * The chief makes a "parameter_server" {@link Strategy}, builds and
 * compiles the same model and trains it with
 * {@link Model#fit(Dataset, FitOptions, FitCallback)} and stepsPerEpoch, or
 * with a custom loop through a {@link Coordinator}; each step runs on a
 * free worker, on that worker's data. Each task finds its place in the job
 * in TF_CONFIG (or the "tf_config" option); {@link ClusterTask} reads it.
 *
 * <pre>{@code
 * // A ps task:
 * try (ParameterServer ps = ParameterServer.start(null)) {
 *   ps.join();
 * }
 * // A worker task, with the chief's model (same layer names):
 * try (Strategy strategy = Strategy.create("parameter_server");
 *     Model model = buildAndCompile(strategy);
 *     ParameterServer worker = model.serveTrainSteps(batches.repeat(-1))) {
 *   worker.join();
 * }
 * }</pre>
 *
 * <p>The server keeps what it serves (the model, the dataset) alive, so they
 * may be closed first. Closing it stops serving; an unreachable server is
 * stopped by the Cleaner, so keep a reference while it should serve. join
 * and close may be called from any thread.
 */
public final class ParameterServer implements AutoCloseable {
  static {
    NativeLibrary.load();
  }

  private final NativeHandle handle;
  private final CountDownLatch closed = new CountDownLatch(1);

  private ParameterServer(long pointer) {
    this(pointer, ParameterServer::delete);
  }

  private ParameterServer(long pointer, LongConsumer deleter) {
    handle = new NativeHandle(this, pointer, deleter, "ParameterServer");
  }

  /**
   * Serves this ps task's variables on the port of its address in the
   * cluster. Options (may be null): "tf_config" (default: the TF_CONFIG
   * environment variable).
   *
   * @throws InvalidArgumentException when this task is not a ps task, or TF_CONFIG is bad
   * @throws UnavailableException when the port cannot be bound
   * @throws UnimplementedException for an unknown option
   */
  public static ParameterServer start(Options options) {
    return new ParameterServer(nativeStart(Options.keysOf(options), Options.valuesOf(options)));
  }

  /** Model.serveTrainSteps's server. */
  static ParameterServer servingTrainSteps(long model, long dataset) {
    return new ParameterServer(nativeServeTrainSteps(model, dataset));
  }

  /** Model.serveTrainStepsFromFunction's server. */
  static ParameterServer servingTrainStepsFromFunction(long model, DatasetFunction function) {
    return new ParameterServer(
        nativeServeTrainStepsFromFunction(model, function),
        ParameterServer::deleteFunctionServer);
  }

  /**
   * Called by the native server, on its own thread, for each dataset the
   * chief asks of this worker: the function's dataset, which the server
   * takes over, or 0 with the function's error written to the TF_Status
   * {@code status}. Nothing may be thrown back to the server's thread.
   */
  private static long makeWorkerDataset(
      DatasetFunction function, int numInputPipelines, int inputPipelineId, long status) {
    try {
      Dataset dataset = function.create(numInputPipelines, inputPipelineId);
      if (dataset == null) {
        setStatus(status, Code.INVALID_ARGUMENT.value(), "the dataset function returned null");
        return 0;
      }
      return dataset.takeOver();
    } catch (TfdException e) {
      setStatus(status, e.code().value(), e.getMessage());
    } catch (Throwable e) {
      setStatus(status, Code.UNKNOWN.value(), "the dataset function threw " + e);
    }
    return 0;
  }

  /**
   * Blocks while the server runs: until another thread closes it, or for
   * ever (TensorFlow's server.join()). Returns at once once closed.
   */
  public void join() throws InterruptedException {
    closed.await();
  }

  /** As {@link #join()}, for at most {@code timeout}; returns whether the server stopped. */
  public boolean join(long timeout, TimeUnit unit) throws InterruptedException {
    return closed.await(timeout, unit);
  }

  /**
   * Stops serving and frees the native server; idempotent. A ps task's
   * variables are lost; the chief's steps on a closed worker run on the
   * others.
   */
  @Override
  public synchronized void close() {
    handle.close();
    closed.countDown();
  }

  // join waits here rather than in TFD_ServerJoin, which nothing could
  // wake: deleting a server under a thread blocked in it is undefined.
  private static native long nativeStart(String[] keys, Object[] values);

  private static native long nativeServeTrainSteps(long model, long dataset);

  private static native long nativeServeTrainStepsFromFunction(
      long model, DatasetFunction function);

  private static native void setStatus(long status, int code, String message);

  private static native void delete(long pointer);

  private static native void deleteFunctionServer(long pointer);
}
