package org.tfd;

/**
 * An input pipeline (tf.data) of (features, labels) elements. A dataset is
 * immutable: shuffle, batch, repeat and take return a new dataset, which
 * the caller closes too; a derived dataset keeps its input alive, so the
 * input may be closed first.
 *
 * <pre>{@code
 * try (Dataset slices = Dataset.fromTensors(images, labels);
 *     Dataset batches = slices.batch(64)) {
 *   model.fit(batches, 1, null);
 * }
 * }</pre>
 */
public final class Dataset implements AutoCloseable {
  static {
    NativeLibrary.load();
  }

  private final NativeHandle handle;

  private Dataset(long pointer) {
    handle = new NativeHandle(this, pointer, Dataset::delete, "Dataset");
  }

  /**
   * from_tensor_slices: element i is (tensors[0][i], tensors[1][i], ...).
   * The tensors' contents are shared with the dataset, which stays valid
   * after they are closed.
   *
   * @throws InvalidArgumentException for no tensors, scalars, or first
   *     dimensions that differ
   */
  public static Dataset fromTensors(Tensor... tensors) {
    if (tensors == null || tensors.length == 0) {
      throw new InvalidArgumentException("fromTensors needs at least one tensor");
    }
    long[] handles = new long[tensors.length];
    for (int i = 0; i < tensors.length; i++) {
      if (tensors[i] == null) {
        throw new InvalidArgumentException("fromTensors: tensor " + i + " is null");
      }
      handles[i] = tensors[i].nativeHandle();
    }
    return new Dataset(nativeFromTensors(handles));
  }

  /**
   * (image, label) pairs from IDX files (MNIST, Fashion-MNIST; gzipped or
   * not). With {@code scale != 0} the images become FLOAT times {@code
   * scale}.
   *
   * @throws NotFoundException for a missing file
   * @throws InternalException (DATA_LOSS) for a corrupt one
   */
  public static Dataset fromIdx(String imagesPath, String labelsPath, double scale) {
    return new Dataset(nativeFromIdx(imagesPath, labelsPath, scale));
  }

  /**
   * tf.train.Example records read from TFRecord files and parsed as
   * fixed-length features: element i holds, in order, feature {@code
   * keys[k]} of type {@code dataTypes[k]} (FLOAT or INT64) and shape {@code
   * shapes[k]} (empty for a scalar). Missing files and corrupt records are
   * reported while iterating (NotFoundException, DATA_LOSS), as tf.data does.
   */
  public static Dataset fromTFRecord(
      String[] filenames, String[] keys, DataType[] dataTypes, long[][] shapes) {
    if (filenames == null || keys == null || dataTypes == null || shapes == null) {
      throw new InvalidArgumentException("fromTFRecord: no argument may be null");
    }
    if (keys.length != dataTypes.length || keys.length != shapes.length) {
      throw new InvalidArgumentException(
          "fromTFRecord: keys, dataTypes and shapes must have one entry per feature");
    }
    int[] types = new int[dataTypes.length];
    for (int i = 0; i < types.length; i++) {
      if (dataTypes[i] == null || shapes[i] == null) {
        throw new InvalidArgumentException("fromTFRecord: feature " + i + " has a null type or shape");
      }
      types[i] = dataTypes[i].value();
    }
    return new Dataset(nativeFromTFRecord(filenames, keys, types, shapes));
  }

  /** A buffer of {@code bufferSize} elements; deterministic for a nonzero seed. */
  public Dataset shuffle(long bufferSize, long seed, boolean reshuffleEachIteration) {
    return new Dataset(nativeShuffle(handle.get(), bufferSize, seed, reshuffleEachIteration));
  }

  /** Batches of {@code batchSize}; the last one is short unless dropRemainder. */
  public Dataset batch(long batchSize, boolean dropRemainder) {
    return new Dataset(nativeBatch(handle.get(), batchSize, dropRemainder));
  }

  public Dataset batch(long batchSize) {
    return batch(batchSize, false);
  }

  /** {@code count} passes; -1 for ever. */
  public Dataset repeat(long count) {
    return new Dataset(nativeRepeat(handle.get(), count));
  }

  /** The first {@code count} elements; -1 for all. */
  public Dataset take(long count) {
    return new Dataset(nativeTake(handle.get(), count));
  }

  /**
   * tf.data's shard: every {@code numShards}-th element, starting with
   * element {@code index} (0 <= index < numShards), e.g. a worker's part of
   * the data in a {@link DatasetFunction}. Shard before shuffling and
   * batching.
   *
   * @throws InvalidArgumentException for numShards < 1 or an index outside [0, numShards)
   */
  public Dataset shard(long numShards, long index) {
    return new Dataset(nativeShard(handle.get(), numShards, index));
  }

  /** The number of elements; -1 when infinite, -2 when unknown (tf.data's cardinality). */
  public long cardinality() {
    return nativeCardinality(handle.get());
  }

  /**
   * A new pass over the dataset from its first element, for custom
   * training loops; the caller closes it. It keeps the dataset alive.
   */
  public DatasetIterator iterator() {
    return DatasetIterator.over(this);
  }

  /** Frees the native dataset; idempotent. */
  @Override
  public void close() {
    handle.close();
  }

  long nativeHandle() {
    return handle.get();
  }

  /** Hands the native dataset to a new owner and leaves this one closed. */
  long takeOver() {
    return handle.release();
  }

  private static native long nativeFromTensors(long[] tensors);

  private static native long nativeFromIdx(String images, String labels, double scale);

  private static native long nativeFromTFRecord(
      String[] filenames, String[] keys, int[] dataTypes, long[][] shapes);

  private static native long nativeShuffle(long pointer, long bufferSize, long seed, boolean reshuffle);

  private static native long nativeBatch(long pointer, long batchSize, boolean dropRemainder);

  private static native long nativeRepeat(long pointer, long count);

  private static native long nativeTake(long pointer, long count);

  private static native long nativeShard(long pointer, long numShards, long index);

  private static native long nativeCardinality(long pointer);

  private static native void delete(long pointer);
}
