package org.tfd;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

class DevicesTest {
  @AfterEach
  void backToTheHost() {
    Devices.setDefault(null);
  }

  @Test
  void theHostsNamesAndAutoAreAccepted() {
    Devices.setDefault(null);
    Devices.setDefault("");
    Devices.setDefault("cpu");
    Devices.setDefault("/device:CPU:0");
    Devices.setDefault("auto");
  }

  @Test
  void badNamesAreInvalidArgumentsNamingThem() {
    for (String name : new String[] {"gpu0", "/device:GPU:4096", "/device:CPU:3"}) {
      InvalidArgumentException e =
          assertThrows(InvalidArgumentException.class, () -> Devices.setDefault(name));
      assertEquals(Code.INVALID_ARGUMENT, e.code());
      assertTrue(e.getMessage().contains("\"" + name + "\""), e.getMessage());
    }
  }
}
