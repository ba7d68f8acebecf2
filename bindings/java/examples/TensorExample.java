package org.tfd.examples;

import java.util.Arrays;
import org.tfd.InvalidArgumentException;
import org.tfd.Tensor;

/** Makes a tensor from a Java array and reads it back. */
public final class TensorExample {
  public static void main(String[] args) {
    try (Tensor t = Tensor.create(new float[][] {{1, 2, 3}, {4, 5, 6}})) {
      System.out.println("shape: " + Arrays.toString(t.shape()) + " type: " + t.dataType());
      float[][] values = t.copyTo(new float[2][3]);
      System.out.println("value: " + Arrays.deepToString(values));
    }
    try {
      Tensor.create(new float[][] {{1, 2}, {3}}).close();
    } catch (InvalidArgumentException e) {
      System.out.println("code: " + e.code());
    }
  }
}
