// ModelScope: makes a model's strategy current on this thread (a
// StrategyScope) for as long as the scope lives, so that the variables of
// layers, optimizers and metrics the C API creates for the model are the
// strategy's. Nothing is pushed for the default strategy, whose variables
// are made without a scope.
#ifndef TFD_C_API_INTERNAL_MODEL_SCOPE_H_
#define TFD_C_API_INTERNAL_MODEL_SCOPE_H_

#include <optional>

#include "c_api/internal/tfd_structs.h"
#include "core/distribute/strategy.h"

namespace tfd {
namespace capi {

class ModelScope {
 public:
  explicit ModelScope(const TFD_Model& model) {
    if (model.strategy.get() != &distribute::DefaultStrategy()) scope_.emplace(model.strategy.get());
  }

 private:
  std::optional<distribute::StrategyScope> scope_;
};

}  // namespace capi
}  // namespace tfd

#endif  // TFD_C_API_INTERNAL_MODEL_SCOPE_H_
