package org.tfd;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.Arrays;
import java.util.Map;
import org.junit.jupiter.api.Test;

class SignatureTest {
  // A MetaGraphDef serialized by TensorFlow 2.21's Python protobuf classes:
  // tags ["serve"], a one-node graph and two signatures, "serving_default"
  // (x: float [-1, 784] -> probs: float [-1, 10]) and
  // "__saved_model_init_op" (an output of unknown rank).
  private static final String META_GRAPH_HEX =
      "0a072205736572766512050a030a01782a3e0a155f5f73617665645f6d6f64656c5f696e"
          + "69745f6f70122512230a155f5f73617665645f6d6f64656c5f696e69745f6f70120a0a044e6f4f701a"
          + "0218012a9d010a0f73657276696e675f64656661756c741289010a300a0178122b0a1373657276696e"
          + "675f64656661756c745f783a3010011a12120b08ffffffffffffffffff01120308900612390a057072"
          + "6f627312300a19537461746566756c506172746974696f6e656443616c6c3a3010011a11120b08ffff"
          + "ffffffffffffff011202080a1a1a74656e736f72666c6f772f73657276696e672f70726564696374";

  private static byte[] bytes(String hex) {
    byte[] b = new byte[hex.length() / 2];
    for (int i = 0; i < b.length; i++) {
      b[i] = (byte) Integer.parseInt(hex.substring(2 * i, 2 * i + 2), 16);
    }
    return b;
  }

  @Test
  void readsTensorFlowsEncoding() {
    Map<String, Signature> sigs = Signature.parseAll(bytes(META_GRAPH_HEX));
    assertEquals(2, sigs.size());
    Signature serving = sigs.get("serving_default");
    assertEquals("tensorflow/serving/predict", serving.methodName());
    Signature.TensorInfo x = serving.inputs().get("x");
    assertEquals("serving_default_x:0", x.name());
    assertEquals(DataType.FLOAT.value(), x.dataTypeValue());
    assertArrayEquals(new long[] {-1, 784}, x.shape());
    Signature.TensorInfo probs = serving.outputs().get("probs");
    assertEquals("StatefulPartitionedCall:0", probs.name());
    assertArrayEquals(new long[] {-1, 10}, probs.shape());
    Signature init = sigs.get("__saved_model_init_op");
    assertTrue(init.inputs().isEmpty());
    assertEquals("NoOp", init.outputs().get("__saved_model_init_op").name());
    assertNull(init.outputs().get("__saved_model_init_op").shape());
  }

  @Test
  void corruptBytesAreDataLoss() {
    byte[] good = bytes(META_GRAPH_HEX);
    byte[][] bad = {
      Arrays.copyOf(good, good.length - 3), // truncated inside a signature
      {0x2a, 0x05, 0x0a}, // a length past the end
      {0x2b}, // a group (wire type 3)
      {0x2a, (byte) 0x80}, // a truncated varint
      {0x02, 0x01}, // field number 0
    };
    for (byte[] b : bad) {
      InternalException e = assertThrows(InternalException.class, () -> Signature.parseAll(b));
      assertEquals(Code.DATA_LOSS, e.code());
    }
    assertTrue(Signature.parseAll(new byte[0]).isEmpty());
  }
}
