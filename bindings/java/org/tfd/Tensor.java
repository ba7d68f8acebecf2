package org.tfd;

import java.lang.reflect.Array;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.DoubleBuffer;
import java.nio.FloatBuffer;
import java.nio.IntBuffer;
import java.nio.LongBuffer;
import java.util.Arrays;

/**
 * A dense tensor in native memory (a TF_Tensor).
 *
 * <p>Made from a Java scalar, a (multi-dimensional) primitive array or a
 * java.nio buffer, always by copy; read back the same ways, again by copy.
 * The native memory is freed by {@link #close()}; a Cleaner frees it too
 * once the Tensor is unreachable, as a safety net, but a program that
 * creates many tensors should close them (try-with-resources).
 *
 * <pre>{@code
 * try (Tensor t = Tensor.create(new float[][] {{1, 2}, {3, 4}})) {
 *   float[][] back = t.copyTo(new float[2][2]);
 * }
 * }</pre>
 *
 * <p>Java types map to data types as float→FLOAT, double→DOUBLE, int→INT32,
 * long→INT64, byte→INT8, short→INT16, boolean→BOOL; {@link #create(Object,
 * DataType)} picks another type of the same width (see {@link DataType}).
 * A Tensor is not thread-safe; every error is a {@link TfdException}.
 */
public final class Tensor implements AutoCloseable {
  static {
    NativeLibrary.load();
  }

  // Java arrays hold at most this many bytes.
  private static final long MAX_BYTES = Integer.MAX_VALUE - 8;

  private final NativeHandle handle;
  private final DataType dataType;
  private final long[] shape;

  private Tensor(long pointer) {
    handle = new NativeHandle(this, pointer, Tensor::delete, "Tensor");
    dataType = DataType.fromValue(dtype(pointer));
    shape = shape(pointer);
  }

  /** Takes ownership of a TF_Tensor* returned by the C API. */
  static Tensor fromNativeHandle(long pointer) {
    if (pointer == 0) {
      throw new InternalException(Code.INTERNAL, "the C API returned a NULL tensor");
    }
    return new Tensor(pointer);
  }

  /**
   * A tensor holding {@code value}: a boxed scalar (Float, Integer, ...) or
   * a rectangular primitive array of any rank, typed by its Java type.
   *
   * @throws InvalidArgumentException for null, a ragged array or a type
   *     that maps to no data type.
   */
  public static Tensor create(Object value) {
    return create(value, DataType.forCarrier(leafType(value)));
  }

  /**
   * A tensor of type {@code dataType} holding {@code value}, whose Java
   * type must be the carrier of {@code dataType} (e.g. short[] for HALF).
   */
  public static Tensor create(Object value, DataType dataType) {
    if (dataType == null) {
      throw new InvalidArgumentException("dataType is null");
    }
    Class<?> leaf = leafType(value);
    if (leaf != dataType.carrier()) {
      throw new InvalidArgumentException(
          "cannot make a " + dataType + " tensor from " + leaf.getName()
              + " values: expected " + dataType.carrier().getName());
    }
    long[] shape = shapeOf(value);
    ByteBuffer bytes = allocateBytes(dataType, shape);
    writeElements(value, shape, 0, bytes);
    return fromBytes(dataType, shape, bytes.array());
  }

  /** A FLOAT tensor of {@code shape} from the remaining elements of {@code data}. */
  public static Tensor create(long[] shape, FloatBuffer data) {
    ByteBuffer bytes = allocateForBuffer(DataType.FLOAT, shape, data == null ? -1 : data.remaining());
    bytes.asFloatBuffer().put(data.duplicate());
    return fromBytes(DataType.FLOAT, shape, bytes.array());
  }

  /** A DOUBLE tensor of {@code shape} from the remaining elements of {@code data}. */
  public static Tensor create(long[] shape, DoubleBuffer data) {
    ByteBuffer bytes = allocateForBuffer(DataType.DOUBLE, shape, data == null ? -1 : data.remaining());
    bytes.asDoubleBuffer().put(data.duplicate());
    return fromBytes(DataType.DOUBLE, shape, bytes.array());
  }

  /** An INT32 tensor of {@code shape} from the remaining elements of {@code data}. */
  public static Tensor create(long[] shape, IntBuffer data) {
    ByteBuffer bytes = allocateForBuffer(DataType.INT32, shape, data == null ? -1 : data.remaining());
    bytes.asIntBuffer().put(data.duplicate());
    return fromBytes(DataType.INT32, shape, bytes.array());
  }

  /** An INT64 tensor of {@code shape} from the remaining elements of {@code data}. */
  public static Tensor create(long[] shape, LongBuffer data) {
    ByteBuffer bytes = allocateForBuffer(DataType.INT64, shape, data == null ? -1 : data.remaining());
    bytes.asLongBuffer().put(data.duplicate());
    return fromBytes(DataType.INT64, shape, bytes.array());
  }

  /**
   * A tensor of any type from raw bytes: the remaining bytes of {@code data}
   * are the elements in row-major order and native byte order.
   */
  public static Tensor create(DataType dataType, long[] shape, ByteBuffer data) {
    if (dataType == null) {
      throw new InvalidArgumentException("dataType is null");
    }
    checkShape(shape);
    if (data == null) {
      throw new InvalidArgumentException("data is null");
    }
    long needed = byteSize(dataType, shape);
    if (data.remaining() != needed) {
      throw new InvalidArgumentException(
          "a " + dataType + " tensor of shape " + Arrays.toString(shape) + " needs " + needed
              + " bytes, the buffer has " + data.remaining());
    }
    byte[] bytes = new byte[(int) needed];
    data.duplicate().get(bytes);
    return fromBytes(dataType, shape, bytes);
  }

  public DataType dataType() {
    return dataType;
  }

  /** The size of each dimension; empty for a scalar. */
  public long[] shape() {
    return shape.clone();
  }

  public int numDimensions() {
    return shape.length;
  }

  public long numElements() {
    return numElements(shape);
  }

  public long numBytes() {
    return numElements() * dataType.byteSize();
  }

  /**
   * Copies the elements into {@code dst}, an array of the tensor's shape
   * whose element type is the carrier of its data type, and returns it.
   */
  public <T> T copyTo(T dst) {
    if (dst == null || !dst.getClass().isArray()) {
      throw new InvalidArgumentException("copyTo needs an array, got " + dst);
    }
    Class<?> leaf = leafType(dst);
    if (leaf != dataType.carrier()) {
      throw new InvalidArgumentException(
          "cannot copy a " + dataType + " tensor into " + leaf.getName() + " values: expected "
              + dataType.carrier().getName());
    }
    long[] dstShape = shapeOf(dst);
    if (!Arrays.equals(dstShape, shape)) {
      throw new InvalidArgumentException(
          "cannot copy a tensor of shape " + Arrays.toString(shape) + " into an array of shape "
              + Arrays.toString(dstShape));
    }
    readElements(dst, 0, contents());
    return dst;
  }

  public float floatValue() {
    return scalar(float.class).getFloat();
  }

  public double doubleValue() {
    return scalar(double.class).getDouble();
  }

  public int intValue() {
    return scalar(int.class).getInt();
  }

  public long longValue() {
    return scalar(long.class).getLong();
  }

  public byte byteValue() {
    return scalar(byte.class).get();
  }

  public short shortValue() {
    return scalar(short.class).getShort();
  }

  public boolean booleanValue() {
    return scalar(boolean.class).get() != 0;
  }

  /** Copies the elements of a FLOAT tensor into {@code dst}. */
  public void writeTo(FloatBuffer dst) {
    ByteBuffer src = contentsFor(float.class, dst == null ? -1 : dst.remaining());
    dst.put(src.asFloatBuffer());
  }

  public void writeTo(DoubleBuffer dst) {
    ByteBuffer src = contentsFor(double.class, dst == null ? -1 : dst.remaining());
    dst.put(src.asDoubleBuffer());
  }

  public void writeTo(IntBuffer dst) {
    ByteBuffer src = contentsFor(int.class, dst == null ? -1 : dst.remaining());
    dst.put(src.asIntBuffer());
  }

  public void writeTo(LongBuffer dst) {
    ByteBuffer src = contentsFor(long.class, dst == null ? -1 : dst.remaining());
    dst.put(src.asLongBuffer());
  }

  /** Copies the raw bytes (native byte order) of a tensor of any type. */
  public void writeTo(ByteBuffer dst) {
    if (dst == null || dst.remaining() < numBytes()) {
      throw new InvalidArgumentException(
          "writeTo needs a buffer with " + numBytes() + " bytes remaining, got "
              + (dst == null ? "null" : dst.remaining()));
    }
    dst.put(contents());
  }

  /** Frees the native memory; idempotent. Any later use throws FailedPreconditionException. */
  @Override
  public void close() {
    handle.close();
  }

  @Override
  public String toString() {
    return dataType + " tensor with shape " + Arrays.toString(shape);
  }

  /** The TF_Tensor*, valid while the tensor is open. */
  long nativeHandle() {
    return handle.get();
  }

  private static Tensor fromBytes(DataType dataType, long[] shape, byte[] bytes) {
    return new Tensor(allocate(dataType.value(), shape, bytes));
  }

  private ByteBuffer contents() {
    return ByteBuffer.wrap(data(handle.get())).order(ByteOrder.nativeOrder());
  }

  private ByteBuffer contentsFor(Class<?> carrier, long room) {
    if (dataType.carrier() != carrier) {
      throw new InvalidArgumentException(
          "cannot write a " + dataType + " tensor into a " + carrier.getName() + " buffer");
    }
    if (room < numElements()) {
      throw new InvalidArgumentException(
          "writeTo needs a buffer with " + numElements() + " elements remaining, got "
              + (room < 0 ? "null" : room));
    }
    return contents();
  }

  private ByteBuffer scalar(Class<?> carrier) {
    if (shape.length != 0 || dataType.carrier() != carrier) {
      throw new InvalidArgumentException(
          "expected a scalar of " + carrier.getName() + " values, the tensor is " + this);
    }
    return contents();
  }

  private static long numElements(long[] shape) {
    long n = 1;
    for (long d : shape) {
      n *= d;
    }
    return n;
  }

  private static void checkShape(long[] shape) {
    if (shape == null) {
      throw new InvalidArgumentException("shape is null");
    }
    for (long d : shape) {
      if (d < 0) {
        throw new InvalidArgumentException(
            "dimensions must be >= 0, got shape " + Arrays.toString(shape));
      }
    }
  }

  private static long byteSize(DataType dataType, long[] shape) {
    long n = 1;
    for (long d : shape) {
      if (d != 0 && n > MAX_BYTES / d) {
        n = MAX_BYTES + 1;
        break;
      }
      n *= d;
    }
    if (n > MAX_BYTES / dataType.byteSize()) {
      throw new ResourceExhaustedException(
          "a tensor of shape " + Arrays.toString(shape) + " and type " + dataType
              + " is larger than a Java array can carry");
    }
    return n * dataType.byteSize();
  }

  private static ByteBuffer allocateBytes(DataType dataType, long[] shape) {
    return ByteBuffer.allocate((int) byteSize(dataType, shape)).order(ByteOrder.nativeOrder());
  }

  private static ByteBuffer allocateForBuffer(DataType dataType, long[] shape, long elements) {
    checkShape(shape);
    if (elements < 0) {
      throw new InvalidArgumentException("data is null");
    }
    if (elements != numElements(shape)) {
      throw new InvalidArgumentException(
          "a buffer with " + elements + " elements does not fill a tensor of shape "
              + Arrays.toString(shape));
    }
    return allocateBytes(dataType, shape);
  }

  // The primitive type of a boxed scalar or of the innermost array elements.
  private static Class<?> leafType(Object value) {
    if (value == null) {
      throw new InvalidArgumentException("cannot make a tensor of null");
    }
    Class<?> c = value.getClass();
    while (c.isArray()) {
      c = c.getComponentType();
    }
    if (c.isPrimitive()) return c;
    if (value.getClass().isArray()) {
      throw new InvalidArgumentException(
          "expected an array of primitives, got " + value.getClass().getSimpleName());
    }
    if (c == Float.class) return float.class;
    if (c == Double.class) return double.class;
    if (c == Integer.class) return int.class;
    if (c == Long.class) return long.class;
    if (c == Byte.class) return byte.class;
    if (c == Short.class) return short.class;
    if (c == Boolean.class) return boolean.class;
    throw new InvalidArgumentException("cannot make a tensor of " + c.getName());
  }

  // The shape, read along the first element of each dimension; the rest is
  // checked while copying. Inner dimensions of an empty array are 0.
  private static long[] shapeOf(Object value) {
    int rank = 0;
    for (Class<?> c = value.getClass(); c.isArray(); c = c.getComponentType()) {
      rank++;
    }
    long[] shape = new long[rank];
    Object a = value;
    for (int d = 0; d < rank; d++) {
      if (a == null) {
        throw new InvalidArgumentException("null sub-array at dimension " + d);
      }
      shape[d] = Array.getLength(a);
      a = shape[d] > 0 ? Array.get(a, 0) : null;
      if (shape[d] == 0) break;
    }
    return shape;
  }

  private static void checkLength(Object array, long[] shape, int depth) {
    if (array == null) {
      throw new InvalidArgumentException("null sub-array at dimension " + depth);
    }
    int n = Array.getLength(array);
    if (n != shape[depth]) {
      throw new InvalidArgumentException(
          "ragged array: dimension " + depth + " has lengths " + shape[depth] + " and " + n);
    }
  }

  private static void writeElements(Object value, long[] shape, int depth, ByteBuffer out) {
    if (depth == shape.length) {
      writeScalar(value, out);
      return;
    }
    checkLength(value, shape, depth);
    if (depth < shape.length - 1) {
      for (Object sub : (Object[]) value) {
        writeElements(sub, shape, depth + 1, out);
      }
      return;
    }
    int n = Array.getLength(value);
    int start = out.position();
    if (value instanceof float[]) {
      out.asFloatBuffer().put((float[]) value);
      out.position(start + 4 * n);
    } else if (value instanceof double[]) {
      out.asDoubleBuffer().put((double[]) value);
      out.position(start + 8 * n);
    } else if (value instanceof int[]) {
      out.asIntBuffer().put((int[]) value);
      out.position(start + 4 * n);
    } else if (value instanceof long[]) {
      out.asLongBuffer().put((long[]) value);
      out.position(start + 8 * n);
    } else if (value instanceof short[]) {
      out.asShortBuffer().put((short[]) value);
      out.position(start + 2 * n);
    } else if (value instanceof byte[]) {
      out.put((byte[]) value);
    } else {
      for (boolean b : (boolean[]) value) {
        out.put((byte) (b ? 1 : 0));
      }
    }
  }

  private static void writeScalar(Object value, ByteBuffer out) {
    if (value instanceof Float) out.putFloat((Float) value);
    else if (value instanceof Double) out.putDouble((Double) value);
    else if (value instanceof Integer) out.putInt((Integer) value);
    else if (value instanceof Long) out.putLong((Long) value);
    else if (value instanceof Short) out.putShort((Short) value);
    else if (value instanceof Byte) out.put((Byte) value);
    else out.put((byte) ((Boolean) value ? 1 : 0));
  }

  private void readElements(Object dst, int depth, ByteBuffer in) {
    checkLength(dst, shape, depth);
    if (depth < shape.length - 1) {
      for (Object sub : (Object[]) dst) {
        readElements(sub, depth + 1, in);
      }
      return;
    }
    int n = Array.getLength(dst);
    int start = in.position();
    if (dst instanceof float[]) {
      in.asFloatBuffer().get((float[]) dst);
      in.position(start + 4 * n);
    } else if (dst instanceof double[]) {
      in.asDoubleBuffer().get((double[]) dst);
      in.position(start + 8 * n);
    } else if (dst instanceof int[]) {
      in.asIntBuffer().get((int[]) dst);
      in.position(start + 4 * n);
    } else if (dst instanceof long[]) {
      in.asLongBuffer().get((long[]) dst);
      in.position(start + 8 * n);
    } else if (dst instanceof short[]) {
      in.asShortBuffer().get((short[]) dst);
      in.position(start + 2 * n);
    } else if (dst instanceof byte[]) {
      in.get((byte[]) dst);
    } else {
      boolean[] b = (boolean[]) dst;
      for (int i = 0; i < n; i++) {
        b[i] = in.get() != 0;
      }
    }
  }

  private static native long allocate(int dataType, long[] shape, byte[] data);

  private static native void delete(long pointer);

  private static native int dtype(long pointer);

  private static native long[] shape(long pointer);

  private static native byte[] data(long pointer);
}
