package org.tfd;

/**
 * Makes a worker's dataset of (x, y) batches, as the dataset_fn of
 * TensorFlow's DatasetCreator, for {@link Model#serveTrainStepsFromFunction}.
 *
 * <pre>{@code
 * ParameterServer worker = model.serveTrainStepsFromFunction((workers, index) -> {
 *   try (Dataset shard = examples.shard(workers, index);
 *       Dataset repeated = shard.repeat(-1)) {
 *     return repeated.batch(32);
 *   }
 * });
 * }</pre>
 *
 * <p>It runs on a thread of the server. Return a new dataset each call:
 * the server takes it over, and it is closed for the caller once the
 * function returns. A {@link TfdException} it throws fails the chief's call
 * that made the workers' iterators with the exception's code; any other
 * exception with UNKNOWN.
 */
@FunctionalInterface
public interface DatasetFunction {
  /**
   * The dataset of the worker {@code inputPipelineId} among
   * {@code numInputPipelines} workers (TensorFlow's InputContext; its own
   * DatasetCreator gets 1 and 0 under parameter servers, tfd tells the
   * worker's place so that the function can shard by it).
   */
  Dataset create(int numInputPipelines, int inputPipelineId);
}
