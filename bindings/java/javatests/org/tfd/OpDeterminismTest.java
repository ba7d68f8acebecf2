package org.tfd;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

class OpDeterminismTest {
  private static boolean initial;

  @BeforeAll
  static void readBeforeAnyTestSetsIt() {
    initial = OpDeterminism.isEnabled();
  }

  @AfterEach
  void off() {
    OpDeterminism.setEnabled(false);
  }

  @Test
  void startsFromTheEnvironment() {
    String env = System.getenv("TF_DETERMINISTIC_OPS");
    boolean expected = env != null && (env.equals("1") || env.equalsIgnoreCase("true"));
    assertEquals(expected, initial);
  }

  @Test
  void setEnabledTurnsItOnAndOff() {
    OpDeterminism.setEnabled(true);
    assertTrue(OpDeterminism.isEnabled());
    OpDeterminism.setEnabled(true);
    assertTrue(OpDeterminism.isEnabled());
    OpDeterminism.setEnabled(false);
    assertFalse(OpDeterminism.isEnabled());
  }
}
