package org.tfd;

import java.util.ArrayList;
import java.util.Collections;
import java.util.List;

/**
 * Runs the graph of a {@link SavedModelBundle}. Safe for concurrent runs;
 * owned and closed by its bundle.
 */
public final class Session {
  static {
    NativeLibrary.load();
  }

  private final SavedModelBundle bundle; // keeps the native session alive

  Session(SavedModelBundle bundle) {
    this.bundle = bundle;
  }

  /** A new Runner: one set of feeds, fetches and targets. */
  public Runner runner() {
    return new Runner();
  }

  /**
   * Feeds, fetches and targets for one run, named "operation" or
   * "operation:index" (a TensorInfo's name), as TensorFlow Java 1.x.
   */
  public final class Runner {
    private final List<String> inputNames = new ArrayList<>();
    private final List<Integer> inputIndices = new ArrayList<>();
    private final List<Tensor> inputs = new ArrayList<>();
    private final List<String> outputNames = new ArrayList<>();
    private final List<Integer> outputIndices = new ArrayList<>();
    private final List<String> targets = new ArrayList<>();

    private Runner() {}

    /** Feeds {@code t} to the output named "op" or "op:index". */
    public Runner feed(String operation, Tensor t) {
      if (t == null) {
        throw new InvalidArgumentException("feed " + operation + ": tensor is null");
      }
      addName(operation, inputNames, inputIndices);
      inputs.add(t);
      return this;
    }

    /** Fetches the output named "op" or "op:index". */
    public Runner fetch(String operation) {
      addName(operation, outputNames, outputIndices);
      return this;
    }

    /** Runs the operation for its effects, fetching nothing from it. */
    public Runner addTarget(String operation) {
      if (operation == null) {
        throw new InvalidArgumentException("addTarget: operation is null");
      }
      targets.add(operation);
      return this;
    }

    /**
     * Runs the graph; returns one new tensor per fetch, in order, each the
     * caller's to close.
     *
     * @throws InvalidArgumentException for an operation the graph does not have
     */
    public List<Tensor> run() {
      long[] inputHandles = new long[inputs.size()];
      for (int i = 0; i < inputHandles.length; i++) {
        inputHandles[i] = inputs.get(i).nativeHandle();
      }
      long[] results =
          Session.run(
              bundle.sessionHandle(),
              bundle.graphHandle(),
              inputNames.toArray(new String[0]),
              toInts(inputIndices),
              inputHandles,
              outputNames.toArray(new String[0]),
              toInts(outputIndices),
              targets.toArray(new String[0]));
      List<Tensor> out = new ArrayList<>(results.length);
      for (long r : results) {
        out.add(Tensor.fromNativeHandle(r));
      }
      return Collections.unmodifiableList(out);
    }

    private void addName(String name, List<String> names, List<Integer> indices) {
      if (name == null) {
        throw new InvalidArgumentException("operation name is null");
      }
      int colon = name.lastIndexOf(':');
      int index = 0;
      String op = name;
      if (colon >= 0) {
        try {
          index = Integer.parseInt(name.substring(colon + 1));
        } catch (NumberFormatException e) {
          index = -1;
        }
        if (index < 0) {
          throw new InvalidArgumentException(
              "output name " + name + ": the index after ':' must be an int >= 0");
        }
        op = name.substring(0, colon);
      }
      names.add(op);
      indices.add(index);
    }
  }

  private static int[] toInts(List<Integer> list) {
    int[] out = new int[list.size()];
    for (int i = 0; i < out.length; i++) {
      out[i] = list.get(i);
    }
    return out;
  }

  private static native long[] run(
      long session,
      long graph,
      String[] inputOps,
      int[] inputIndices,
      long[] inputs,
      String[] outputOps,
      int[] outputIndices,
      String[] targetOps);
}
