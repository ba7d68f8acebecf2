// TFD_EnableOpDeterminism / TFD_OpDeterminismEnabled: the process's op
// determinism switch (core/framework/determinism.h) from C.
#include "core/framework/determinism.h"
#include "tfd/determinism.h"

extern "C" {

void TFD_EnableOpDeterminism(unsigned char enabled) { tfd::EnableOpDeterminism(enabled != 0); }

unsigned char TFD_OpDeterminismEnabled(void) { return tfd::OpDeterminismEnabled() ? 1 : 0; }

}  // extern "C"
