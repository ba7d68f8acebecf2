/* tfd/determinism.h from plain C: TF_DETERMINISTIC_OPS, set before the
 * first query (it is read once per process), turns op determinism on, and
 * TFD_EnableOpDeterminism overrides it either way. */
#define _POSIX_C_SOURCE 200809L
#include <stdio.h>
#include <stdlib.h>

#include "c_api/c_expect.h"
#include "tfd/c_api.h"

int main(void) {
  EXPECT(setenv("TF_DETERMINISTIC_OPS", "TRUE", 1) == 0);
  EXPECT(TFD_OpDeterminismEnabled() == 1);
  TFD_EnableOpDeterminism(0);
  EXPECT(TFD_OpDeterminismEnabled() == 0);
  /* The environment is not read again. */
  EXPECT(TFD_OpDeterminismEnabled() == 0);
  TFD_EnableOpDeterminism(7);
  EXPECT(TFD_OpDeterminismEnabled() == 1);
  TFD_EnableOpDeterminism(0);
  EXPECT(TFD_OpDeterminismEnabled() == 0);
  if (failures == 0) printf("tfd_determinism_test: all checks passed\n");
  return failures == 0 ? 0 : 1;
}
