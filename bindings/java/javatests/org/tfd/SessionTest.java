package org.tfd;

import static org.junit.jupiter.api.Assertions.assertThrows;

import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class SessionTest {
  @Test
  void loadingChecksItsArguments(@TempDir Path dir) {
    assertThrows(InvalidArgumentException.class, () -> SavedModelBundle.load(null, "serve"));
    assertThrows(
        InvalidArgumentException.class, () -> SavedModelBundle.load(dir.toString(), (String[]) null));
    assertThrows(
        InvalidArgumentException.class, () -> SavedModelBundle.load(dir.toString(), "serve", null));
    // An empty directory holds no SavedModel.
    assertThrows(TfdException.class, () -> SavedModelBundle.load(dir.toString(), "serve"));
  }
}
