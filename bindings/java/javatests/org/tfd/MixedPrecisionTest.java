package org.tfd;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/** Keras's dtype policies and the mixed_float16 loss scale through Java. */
class MixedPrecisionTest {
  private static final int N = 16;

  @AfterEach
  void backToFloat32() {
    MixedPrecision.setGlobalPolicy("float32");
  }

  private static Tensor features(float scale) {
    float[][] x = new float[N][4];
    for (int i = 0; i < N; i++) {
      for (int j = 0; j < 4; j++) {
        x[i][j] = scale * (float) Math.sin(1.7 * i + 0.9 * j + 0.3 * i * j);
      }
    }
    return Tensor.create(x);
  }

  private static Tensor labels() {
    int[] y = new int[N];
    for (int i = 0; i < N; i++) {
      y[i] = i % 3;
    }
    return Tensor.create(y);
  }

  // 4 -> Dense(16, relu) -> Dense(3) -> a float32 linear Activation (Keras's
  // advice for mixed models), compiled with SGD.
  private static Model mlp() {
    Model model = Model.sequential(null, "mlp");
    model
        .add(Layers.input(DataType.FLOAT, 4))
        .add(Layers.dense(16, "relu"))
        .add(Layers.dense(3, null))
        .add(Layers.activation("linear", Options.create().set("dtype", "float32")));
    model.compile(
        "sgd",
        Options.create().set("learning_rate", 0.1),
        "sparse_categorical_crossentropy",
        Options.create().set("from_logits", true));
    return model;
  }

  @Test
  void globalPolicyIsReadWhenTheModelIsMade() {
    assertEquals("float32", MixedPrecision.globalPolicy());
    MixedPrecision.setGlobalPolicy("mixed_bfloat16");
    assertEquals("mixed_bfloat16", MixedPrecision.globalPolicy());
    try (Model model = mlp()) {
      MixedPrecision.setGlobalPolicy(null); // Keras's None: float32 again.
      assertEquals("float32", MixedPrecision.globalPolicy());
      assertEquals("mixed_bfloat16", model.dtypePolicy());
      // bfloat16 needs no loss scaling.
      assertThrows(FailedPreconditionException.class, model::lossScale);
      try (Tensor x = features(1f);
          Tensor y = labels();
          Tensor out = model.predict(x)) {
        assertEquals(DataType.FLOAT, out.dataType()); // the float32 Activation's output
        float first = model.trainStep(x, y);
        float last = first;
        for (int step = 0; step < 40; step++) {
          last = model.trainStep(x, y);
        }
        assertTrue(last < first, "loss " + first + " -> " + last);
      }
    }
  }

  @Test
  void unknownPoliciesNameTheValidOnes() {
    InvalidArgumentException e =
        assertThrows(
            InvalidArgumentException.class, () -> MixedPrecision.setGlobalPolicy("mixed_int8"));
    assertTrue(e.getMessage().contains("mixed_int8"), e.getMessage());
    assertTrue(e.getMessage().contains("'mixed_bfloat16'"), e.getMessage());
    assertEquals("float32", MixedPrecision.globalPolicy());
    assertThrows(InvalidArgumentException.class, () -> MixedPrecision.setGlobalPolicy("int32"));
  }

  @Test
  void mixedFloat16CompileAddsDynamicLossScale() {
    MixedPrecision.setGlobalPolicy("mixed_float16");
    try (Model model = mlp();
        Tensor x = features(1f);
        Tensor overflow = features(1e6f); // past float16's 65504: Inf activations
        Tensor y = labels()) {
      assertEquals("mixed_float16", model.dtypePolicy());
      assertEquals(32768f, model.lossScale());
      assertEquals(0, model.lossScaleGoodSteps());
      model.trainStep(x, y);
      assertEquals(1, model.lossScaleGoodSteps());
      model.trainStep(overflow, y);
      assertEquals(16384f, model.lossScale());
      assertEquals(0, model.lossScaleGoodSteps());
    }
  }

  @Test
  void aLayerTakesItsOwnPolicy() {
    try (Model model = Model.sequential(null, "m")) {
      model
          .add(Layers.input(DataType.FLOAT, 4))
          .add(Layers.dense(3, null, Options.create().set("dtype", "mixed_bfloat16")));
      assertEquals("float32", model.dtypePolicy());
      try (Tensor x = features(1f);
          Tensor out = model.predict(x)) {
        assertEquals(DataType.BFLOAT16, out.dataType());
      }
      assertThrows(
          InvalidArgumentException.class,
          () -> model.add(Layers.dense(3, null, Options.create().set("dtype", "mixed_int8"))));
    }
  }
}
