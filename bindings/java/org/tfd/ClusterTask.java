package org.tfd;

/**
 * This process's task in a multi-worker or parameter-server job, as
 * TensorFlow's cluster resolvers read it: its type ("chief", "worker",
 * "ps" or "evaluator") and index. One program can play every role of a
 * job and pick its part by the type.
 *
 * <pre>{@code
 * ClusterTask task = ClusterTask.resolve(null); // TF_CONFIG
 * if (task.type().equals("ps")) { ... }
 * }</pre>
 */
public final class ClusterTask {
  static {
    NativeLibrary.load();
  }

  private final String type;
  private final int index;

  private ClusterTask(String type, int index) {
    this.type = type;
    this.index = index;
  }

  /**
   * Reads the task. Options (may be null): "tf_config" (default: the
   * TF_CONFIG environment variable, else Open MPI's or SLURM's; with none
   * of them, "worker" 0 of a job of one).
   *
   * @throws InvalidArgumentException for a bad TF_CONFIG
   * @throws UnimplementedException for an unknown option
   */
  public static ClusterTask resolve(Options options) {
    int[] index = new int[1];
    String type = nativeResolve(Options.keysOf(options), Options.valuesOf(options), index);
    return new ClusterTask(type, index[0]);
  }

  /** "chief", "worker", "ps" or "evaluator". */
  public String type() {
    return type;
  }

  /** The task's index among the tasks of its type. */
  public int index() {
    return index;
  }

  /** "type:index", e.g. "worker:1". */
  @Override
  public String toString() {
    return type + ":" + index;
  }

  private static native String nativeResolve(String[] keys, Object[] values, int[] index);
}
