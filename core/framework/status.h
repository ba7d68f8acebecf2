// Status helpers used everywhere in tfd. Errors are values: every fallible
// function returns absl::Status or absl::StatusOr<T>, and these macros
// propagate them without boilerplate. CHECK is for programmer bugs only.
#ifndef TFD_CORE_FRAMEWORK_STATUS_H_
#define TFD_CORE_FRAMEWORK_STATUS_H_

#include <utility>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/strings/str_cat.h"

#define TFD_INTERNAL_CONCAT_(a, b) a##b
#define TFD_INTERNAL_CONCAT(a, b) TFD_INTERNAL_CONCAT_(a, b)

// Returns from the enclosing function if `expr` is not OK.
#define TFD_RETURN_IF_ERROR(expr)                   \
  do {                                              \
    ::absl::Status tfd_status_ = (expr);            \
    if (!tfd_status_.ok()) return tfd_status_;      \
  } while (0)

// `TFD_ASSIGN_OR_RETURN(auto x, MakeX());` declares/assigns `x` from a
// StatusOr, or returns its error.
#define TFD_ASSIGN_OR_RETURN(lhs, rexpr)                                   \
  TFD_INTERNAL_ASSIGN_OR_RETURN_(                                          \
      TFD_INTERNAL_CONCAT(tfd_statusor_, __LINE__), lhs, rexpr)
#define TFD_INTERNAL_ASSIGN_OR_RETURN_(tmp, lhs, rexpr) \
  auto tmp = (rexpr);                                   \
  if (!tmp.ok()) return tmp.status();                   \
  lhs = std::move(tmp).value()

namespace tfd {

// Shorthands that build the message from pieces: InvalidArgument("MatMul: ",
// "got rank ", 3).
template <typename... Args>
absl::Status InvalidArgument(const Args&... args) {
  return absl::InvalidArgumentError(absl::StrCat(args...));
}
template <typename... Args>
absl::Status Unimplemented(const Args&... args) {
  return absl::UnimplementedError(absl::StrCat(args...));
}
template <typename... Args>
absl::Status NotFound(const Args&... args) {
  return absl::NotFoundError(absl::StrCat(args...));
}
template <typename... Args>
absl::Status Internal(const Args&... args) {
  return absl::InternalError(absl::StrCat(args...));
}
template <typename... Args>
absl::Status FailedPrecondition(const Args&... args) {
  return absl::FailedPreconditionError(absl::StrCat(args...));
}
template <typename... Args>
absl::Status ResourceExhausted(const Args&... args) {
  return absl::ResourceExhaustedError(absl::StrCat(args...));
}

}  // namespace tfd

#endif  // TFD_CORE_FRAMEWORK_STATUS_H_
