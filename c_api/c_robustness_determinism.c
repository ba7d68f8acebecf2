/* Bad-input cases of tfd/determinism.h (see c_robustness.h): any nonzero
 * byte turns op determinism on, 0 turns it off, and the getter says 1 or
 * 0, never the byte given. Determinism is off again at the end, so the
 * other parts' cases run as they always do. */
#include "c_api/c_robustness.h"

int DeterminismCases(void) {
  COVERS(TFD_EnableOpDeterminism);
  COVERS(TFD_OpDeterminismEnabled);
  const unsigned char values[] = {1, 2, 128, 255};
  for (size_t i = 0; i < sizeof(values); ++i) {
    TFD_EnableOpDeterminism(values[i]);
    if (TFD_OpDeterminismEnabled() != 1) {
      fprintf(stderr, "TFD_EnableOpDeterminism(%d): the getter says %d, expected 1\n",
              (int)values[i], (int)TFD_OpDeterminismEnabled());
      ++failures;
    }
  }
  TFD_EnableOpDeterminism(0);
  if (TFD_OpDeterminismEnabled() != 0) {
    fprintf(stderr, "TFD_EnableOpDeterminism(0): still on\n");
    ++failures;
  }
  return failures;
}
