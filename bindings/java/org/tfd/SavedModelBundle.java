package org.tfd;

import java.util.Map;

/**
 * A SavedModel loaded for inference, as TensorFlow Java 1.x users know it.
 *
 * <pre>{@code
 * try (SavedModelBundle bundle = SavedModelBundle.load("/models/mlp/1", "serve");
 *     Tensor x = Tensor.create(images)) {
 *   Signature serving = bundle.signatures().get("serving_default");
 *   try (Tensor y = bundle.session().runner()
 *       .feed(serving.inputs().get("x").name(), x)
 *       .fetch(serving.outputs().get("probs").name())
 *       .run().get(0)) { ... }
 * }
 * }</pre>
 *
 * <p>The bundle owns its session and graph: close() frees both (a Cleaner
 * does too once the bundle and its session are unreachable).
 */
public final class SavedModelBundle implements AutoCloseable {
  static {
    NativeLibrary.load();
  }

  private final NativeHandle handle;
  private final long graph;
  private final Session session;
  private final byte[] metaGraphDef;
  private final Map<String, Signature> signatures;

  private SavedModelBundle(long session, long graph, byte[] metaGraphDef) {
    this.graph = graph;
    this.handle =
        new NativeHandle(this, session, s -> delete(s, graph), "SavedModelBundle");
    this.session = new Session(this);
    this.metaGraphDef = metaGraphDef;
    this.signatures = Signature.parseAll(metaGraphDef);
  }

  /**
   * Loads the MetaGraphDef of {@code exportDir} tagged with {@code tags}
   * (usually "serve").
   *
   * @throws NotFoundException for a missing directory or tag set
   * @throws InternalException (DATA_LOSS) for corrupt files
   */
  public static SavedModelBundle load(String exportDir, String... tags) {
    if (exportDir == null || tags == null) {
      throw new InvalidArgumentException("load: exportDir and tags must not be null");
    }
    byte[][] metaGraph = new byte[1][];
    long[] handles = load(exportDir, tags, metaGraph);
    return new SavedModelBundle(handles[0], handles[1], metaGraph[0]);
  }

  /** The session that runs the model; closed with the bundle. */
  public Session session() {
    return session;
  }

  /** The signatures by key ("serving_default", ...). */
  public Map<String, Signature> signatures() {
    return signatures;
  }

  /** The serialized MetaGraphDef protocol buffer that was loaded. */
  public byte[] metaGraphDef() {
    return metaGraphDef.clone();
  }

  /** Closes and frees the session and the graph; idempotent. */
  @Override
  public void close() {
    handle.close();
  }

  long sessionHandle() {
    return handle.get();
  }

  long graphHandle() {
    handle.get();
    return graph;
  }

  private static native long[] load(String exportDir, String[] tags, byte[][] metaGraphDef);

  private static native void delete(long session, long graph);
}
