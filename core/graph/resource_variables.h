// ResourceVariables: the resource variables of one graph session, looked up
// by shared_name as TensorFlow's resource manager does. A VarHandleOp
// creates (or finds) a slot declaring a dtype and shape; the slot holds no
// value until an AssignVariableOp (a checkpoint restore) gives it one, and
// reading it before that is FAILED_PRECONDITION, as TensorFlow's "Error
// while reading resource variable ... uninitialized".
//
// Thread-safe: concurrent Runs of a session share the variables.
#ifndef TFD_CORE_GRAPH_RESOURCE_VARIABLES_H_
#define TFD_CORE_GRAPH_RESOURCE_VARIABLES_H_

#include <map>
#include <memory>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "absl/synchronization/mutex.h"
#include "core/framework/tensor.h"

namespace tfd {
namespace graph {

class ResourceVariables {
 public:
  // One variable. Owned by ResourceVariables; pointers stay valid.
  class Slot {
   public:
    const std::string& name() const { return name_; }
    DataType dtype() const { return dtype_; }
    // Declared dimensions, -1 where unknown; empty with unknown_rank.
    const std::vector<int64_t>& dims() const { return dims_; }

   private:
    friend class ResourceVariables;
    std::string name_;
    DataType dtype_ = DT_INVALID;
    std::vector<int64_t> dims_;
    bool unknown_rank_ = false;
    Tensor value_;  // Undefined until assigned. Guarded by the owner's mutex.
  };

  // The slot called `shared_name`, created with this dtype and shape if new.
  // INVALID_ARGUMENT when it exists with another dtype.
  absl::StatusOr<Slot*> Handle(const std::string& shared_name, DataType dtype,
                               std::vector<int64_t> dims, bool unknown_rank);

  // The current value (a snapshot: later assignments do not change it).
  absl::StatusOr<Tensor> Read(const Slot* slot, DataType expected_dtype) const;
  // INVALID_ARGUMENT when dtype or shape do not match the declaration.
  absl::Status Assign(Slot* slot, const Tensor& value);

  // Names of every slot, sorted.
  std::vector<std::string> Names() const;

 private:
  mutable absl::Mutex mu_;
  std::map<std::string, std::unique_ptr<Slot>> slots_ ABSL_GUARDED_BY(mu_);
};

}  // namespace graph
}  // namespace tfd

#endif  // TFD_CORE_GRAPH_RESOURCE_VARIABLES_H_
