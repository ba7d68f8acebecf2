package org.tfd;

/**
 * A custom training loop under ParameterServerStrategy, driven by the
 * chief as TensorFlow's tf.distribute.coordinator.ClusterCoordinator drives
 * one. {@link #schedule} queues a training step for the next free worker,
 * on the next batch of that worker's own data (what its
 * {@link Model#serveTrainSteps} or {@link Model#serveTrainStepsFromFunction}
 * serves), and returns at once with a {@link RemoteValue} holding the
 * step's loss; {@link #join} waits for every scheduled step.
 *
 * <pre>{@code
 * try (Coordinator coordinator = Coordinator.create(model)) {
 *   for (int epoch = 0; epoch < 3; epoch++) {
 *     model.resetMetrics();
 *     List<RemoteValue> losses = new ArrayList<>();
 *     for (int i = 0; i < 100; i++) {
 *       losses.add(coordinator.schedule());
 *     }
 *     coordinator.join();
 *     System.out.println(losses.get(99).fetch() + " " + model.metrics());
 *     losses.forEach(RemoteValue::close);
 *   }
 * }
 * }</pre>
 *
 * <p>Steps run asynchronously: each reads the variables current when it
 * starts. Once join returns, the chief's model holds the ps's values and
 * optimizer state (evaluate, saveCheckpoint and exportSavedModel see the
 * trained model) and its compiled metrics include every joined step, until
 * resetMetrics. The next step scheduled after a join first writes the
 * model's values to the ps tasks, so a checkpoint restored between steps
 * is where training goes on. A lost worker is dropped and its step runs on
 * another; when none is left, steps fail with UnavailableException. A step
 * that fails fails its RemoteValue and the join; the steps not started
 * then are cancelled.
 *
 * <p>One call at a time per coordinator (its methods wait for each other),
 * and no other training call on its model meanwhile. The coordinator and
 * its remote values may be closed in any order, before or after the model;
 * the Cleaner frees an unreachable coordinator.
 */
public final class Coordinator implements AutoCloseable {
  static {
    NativeLibrary.load();
  }

  private final NativeHandle handle;

  private Coordinator(long pointer) {
    handle = new NativeHandle(this, pointer, Coordinator::delete, "Coordinator");
  }

  /**
   * A coordinator for the custom loop of {@code model}, on the chief of a
   * "parameter_server" job: writes the model's values (and optimizer state)
   * to the ps tasks and makes an iterator on every worker over the data it
   * serves, from its start.
   *
   * @throws InvalidArgumentException for a null model
   * @throws FailedPreconditionException before compile, before the model is built, under
   *     another strategy, or on a worker
   * @throws UnimplementedException for an optimizer the ps tasks cannot apply
   * @throws NotFoundException when a worker serves no data
   * @throws UnavailableException when no worker or ps can be reached
   * @throws TfdException a worker's dataset function's error, with its code
   */
  public static Coordinator create(Model model) {
    if (model == null) {
      throw new InvalidArgumentException("Coordinator.create: model is null");
    }
    return new Coordinator(nativeCreate(model.nativeHandle()));
  }

  /**
   * Queues one training step for the next free worker and returns at once
   * with its loss to come, which the caller closes. After a join, first
   * writes the model's values and optimizer state to the ps tasks, and
   * throws the errors of doing so.
   */
  public synchronized RemoteValue schedule() {
    return new RemoteValue(nativeSchedule(handle.get()));
  }

  /**
   * Waits until every step scheduled so far has finished (each bounded by
   * the strategy's step timeout), then reads the ps's values and optimizer
   * state into the model and adds the steps' metrics to the model's.
   *
   * @throws UnavailableException when every worker was lost
   * @throws TfdException the first failed step's error, as its worker reported it
   */
  public synchronized void join() {
    nativeJoin(handle.get());
  }

  /**
   * Whether every step scheduled so far has finished; does not wait
   * (TensorFlow's coordinator.done()).
   */
  public synchronized boolean done() {
    return nativeDone(handle.get());
  }

  /**
   * Waits for the coordinator's steps, ignoring their errors, releases the
   * iterators it made on the workers, and frees it; idempotent. Its remote
   * values stay valid.
   */
  @Override
  public synchronized void close() {
    handle.close();
  }

  private static native long nativeCreate(long model);

  private static native long nativeSchedule(long coordinator);

  private static native void nativeJoin(long coordinator);

  private static native boolean nativeDone(long coordinator);

  private static native void delete(long pointer);
}
