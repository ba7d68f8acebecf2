// The random ops have no gradient (TensorFlow marks them NotDifferentiable):
// their outputs do not depend on differentiable inputs.
#include "core/autodiff/gradient_registry.h"

namespace tfd {

TFD_NO_GRADIENT("RandomUniform");
TFD_NO_GRADIENT("RandomStandardNormal");
TFD_NO_GRADIENT("TruncatedNormal");
TFD_NO_GRADIENT("RandomUniformInt");

}  // namespace tfd
