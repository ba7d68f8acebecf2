// The boundary of the C API: every exported function runs its body through
// Guard, which turns a returned absl::Status into the caller's TF_Status
// and any C++ exception (std::bad_alloc included) into an error, so that
// nothing throws across the C ABI. Argument checks shared by the TFD_
// functions live here too, with messages naming the function.
#ifndef TFD_C_API_INTERNAL_GUARD_H_
#define TFD_C_API_INTERNAL_GUARD_H_

#include <exception>
#include <new>
#include <string>
#include <utility>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/string_view.h"
#include "c_api/internal/c_structs.h"
#include "core/framework/status.h"

namespace tfd {
namespace capi {

// The status of an exception escaping `fn` of function `where`.
inline absl::Status ExceptionStatus(absl::string_view where) {
  try {
    throw;
  } catch (const std::bad_alloc&) {
    return absl::ResourceExhaustedError(absl::StrCat(where, ": out of memory"));
  } catch (const std::exception& e) {
    return absl::InternalError(absl::StrCat(where, ": ", e.what()));
  } catch (...) {
    return absl::InternalError(absl::StrCat(where, ": unknown C++ exception"));
  }
}

// Runs fn() -> absl::StatusOr<T>; returns its value, or `on_error` after
// setting `status`.
template <typename T, typename Fn>
T Guard(absl::string_view where, TF_Status* status, T on_error, Fn&& fn) noexcept {
  try {
    absl::StatusOr<T> result = std::forward<Fn>(fn)();
    SetStatus(result.status(), status);
    return result.ok() ? *std::move(result) : on_error;
  } catch (...) {
    SetStatus(ExceptionStatus(where), status);
    return on_error;
  }
}

// Runs fn() -> absl::Status.
template <typename Fn>
void GuardVoid(absl::string_view where, TF_Status* status, Fn&& fn) noexcept {
  try {
    SetStatus(std::forward<Fn>(fn)(), status);
  } catch (...) {
    SetStatus(ExceptionStatus(where), status);
  }
}

// INVALID_ARGUMENT "<where>: <what> is NULL" unless `p` is set.
template <typename P>
absl::Status NotNull(absl::string_view where, const P* p, absl::string_view what) {
  if (p != nullptr) return absl::OkStatus();
  return absl::InvalidArgumentError(absl::StrCat(where, ": ", what, " is NULL"));
}

}  // namespace capi
}  // namespace tfd

#endif  // TFD_C_API_INTERNAL_GUARD_H_
