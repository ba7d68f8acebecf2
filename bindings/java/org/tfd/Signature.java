package org.tfd;

import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.Map;

/**
 * A SignatureDef of a SavedModel: its named inputs and outputs. Feed and
 * fetch them by {@link TensorInfo#name()} through {@link Session.Runner}.
 */
public final class Signature {
  // Field numbers of TensorFlow's meta_graph.proto and tensor_shape.proto.
  private static final int META_GRAPH_SIGNATURE_DEF = 5;
  private static final int SIGNATURE_INPUTS = 1;
  private static final int SIGNATURE_OUTPUTS = 2;
  private static final int SIGNATURE_METHOD_NAME = 3;
  private static final int MAP_KEY = 1;
  private static final int MAP_VALUE = 2;
  private static final int TENSOR_INFO_NAME = 1;
  private static final int TENSOR_INFO_DTYPE = 2;
  private static final int TENSOR_INFO_SHAPE = 3;
  private static final int SHAPE_DIM = 2;
  private static final int SHAPE_UNKNOWN_RANK = 3;
  private static final int DIM_SIZE = 1;

  /** One input or output of a signature. */
  public static final class TensorInfo {
    private final String name;
    private final int dataType;
    private final long[] shape;

    TensorInfo(String name, int dataType, long[] shape) {
      this.name = name;
      this.dataType = dataType;
      this.shape = shape;
    }

    /** "operation:index" in the graph. */
    public String name() {
      return name;
    }

    /** The TF_DataType number; 0 when not recorded. */
    public int dataTypeValue() {
      return dataType;
    }

    /** The sizes, -1 where unknown; null when the rank is unknown. */
    public long[] shape() {
      return shape == null ? null : shape.clone();
    }
  }

  private final Map<String, TensorInfo> inputs;
  private final Map<String, TensorInfo> outputs;
  private final String methodName;

  private Signature(Map<String, TensorInfo> inputs, Map<String, TensorInfo> outputs, String method) {
    this.inputs = Collections.unmodifiableMap(inputs);
    this.outputs = Collections.unmodifiableMap(outputs);
    this.methodName = method;
  }

  public Map<String, TensorInfo> inputs() {
    return inputs;
  }

  public Map<String, TensorInfo> outputs() {
    return outputs;
  }

  /** E.g. "tensorflow/serving/predict"; "" when not recorded. */
  public String methodName() {
    return methodName;
  }

  /**
   * The signature_def map of a serialized MetaGraphDef.
   *
   * @throws InternalException (DATA_LOSS) for bytes that are not a valid message
   */
  static Map<String, Signature> parseAll(byte[] metaGraphDef) {
    Map<String, Signature> out = new LinkedHashMap<>();
    try {
      ProtoReader.forEachField(metaGraphDef, f -> {
        if (f.number == META_GRAPH_SIGNATURE_DEF) {
          byte[][] entry = mapEntry(f.bytes);
          out.put(ProtoReader.utf8(entry[0]), parse(entry[1]));
        }
      });
    } catch (IllegalArgumentException e) {
      throw new InternalException(Code.DATA_LOSS, "MetaGraphDef: " + e.getMessage());
    }
    return Collections.unmodifiableMap(out);
  }

  private static Signature parse(byte[] b) {
    Map<String, TensorInfo> inputs = new LinkedHashMap<>();
    Map<String, TensorInfo> outputs = new LinkedHashMap<>();
    String[] method = {""};
    ProtoReader.forEachField(b, f -> {
      if (f.number == SIGNATURE_INPUTS || f.number == SIGNATURE_OUTPUTS) {
        byte[][] entry = mapEntry(f.bytes);
        (f.number == SIGNATURE_INPUTS ? inputs : outputs)
            .put(ProtoReader.utf8(entry[0]), tensorInfo(entry[1]));
      } else if (f.number == SIGNATURE_METHOD_NAME) {
        method[0] = ProtoReader.utf8(f.bytes);
      }
    });
    return new Signature(inputs, outputs, method[0]);
  }

  private static TensorInfo tensorInfo(byte[] b) {
    String[] name = {""};
    int[] dtype = {0};
    long[][] shape = {null};
    ProtoReader.forEachField(b, f -> {
      if (f.number == TENSOR_INFO_NAME) name[0] = ProtoReader.utf8(f.bytes);
      else if (f.number == TENSOR_INFO_DTYPE) dtype[0] = (int) f.varint;
      else if (f.number == TENSOR_INFO_SHAPE) shape[0] = shape(f.bytes);
    });
    return new TensorInfo(name[0], dtype[0], shape[0]);
  }

  private static long[] shape(byte[] b) {
    java.util.List<Long> dims = new java.util.ArrayList<>();
    boolean[] unknownRank = {false};
    ProtoReader.forEachField(b, f -> {
      if (f.number == SHAPE_DIM) {
        long[] size = {0};
        ProtoReader.forEachField(f.bytes, d -> {
          if (d.number == DIM_SIZE) size[0] = d.varint;
        });
        dims.add(size[0]);
      } else if (f.number == SHAPE_UNKNOWN_RANK) {
        unknownRank[0] = f.varint != 0;
      }
    });
    return unknownRank[0] ? null : dims.stream().mapToLong(Long::longValue).toArray();
  }

  // {key, value} of a map<string, message> entry; absent fields are empty.
  private static byte[][] mapEntry(byte[] b) {
    byte[][] entry = {new byte[0], new byte[0]};
    ProtoReader.forEachField(b, f -> {
      if (f.number == MAP_KEY) entry[0] = f.bytes;
      else if (f.number == MAP_VALUE) entry[1] = f.bytes;
    });
    return entry;
  }
}
