package org.tfd;

import java.nio.charset.StandardCharsets;
import java.util.Arrays;
import java.util.function.Consumer;

/**
 * A minimal reader of the protocol buffer wire format, enough to read the
 * signatures of a MetaGraphDef without a protobuf library (the binding has
 * no dependencies). Malformed input is an IllegalArgumentException.
 */
final class ProtoReader {
  /** One field: varint for wire types 0, 1 and 5 (fixed widths as raw bits), bytes for 2. */
  static final class Field {
    int number;
    long varint;
    byte[] bytes;
  }

  private ProtoReader() {}

  static String utf8(byte[] b) {
    return new String(b, StandardCharsets.UTF_8);
  }

  /** Calls {@code f} for each field of the message {@code b}, in order. */
  static void forEachField(byte[] b, Consumer<Field> f) {
    int[] pos = {0};
    while (pos[0] < b.length) {
      long tag = varint(b, pos);
      Field field = new Field();
      field.number = (int) (tag >>> 3);
      if (field.number <= 0) {
        throw new IllegalArgumentException("bad field number " + field.number);
      }
      int wireType = (int) (tag & 7);
      switch (wireType) {
        case 0:
          field.varint = varint(b, pos);
          break;
        case 1:
        case 5:
          int width = wireType == 1 ? 8 : 4;
          if (b.length - pos[0] < width) {
            throw new IllegalArgumentException("truncated fixed-width field " + field.number);
          }
          for (int i = width - 1; i >= 0; i--) {
            field.varint = (field.varint << 8) | (b[pos[0] + i] & 0xff);
          }
          pos[0] += width;
          break;
        case 2:
          long length = varint(b, pos);
          if (length < 0 || length > b.length - pos[0]) {
            throw new IllegalArgumentException(
                "field " + field.number + ": length " + length + " runs past the end");
          }
          field.bytes = Arrays.copyOfRange(b, pos[0], pos[0] + (int) length);
          pos[0] += (int) length;
          break;
        default:
          throw new IllegalArgumentException(
              "field " + field.number + ": unsupported wire type " + wireType);
      }
      f.accept(field);
    }
  }

  private static long varint(byte[] b, int[] pos) {
    long v = 0;
    for (int i = 0; i < 10 && pos[0] < b.length; i++) {
      byte x = b[pos[0]++];
      v |= (long) (x & 0x7f) << (7 * i);
      if ((x & 0x80) == 0) {
        return v;
      }
    }
    throw new IllegalArgumentException("truncated or overlong varint");
  }
}
