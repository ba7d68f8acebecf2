// TF_Status and the one conversion between absl::Status and TF_Status.
#include <cerrno>
#include <cstring>
#include <new>

#include "c_api/internal/c_structs.h"
#include "tensorflow/c/tf_status.h"

namespace tfd {
namespace capi {

void SetStatus(const absl::Status& status, TF_Status* out) {
  if (out == nullptr) return;
  // absl::StatusCode values are the TF_Code values.
  out->code = static_cast<TF_Code>(status.code());
  out->message = status.ok() ? "" : std::string(status.message());
}

absl::Status ToStatus(const TF_Status* status) {
  if (status == nullptr || status->code == TF_OK) return absl::OkStatus();
  return absl::Status(static_cast<absl::StatusCode>(status->code), status->message);
}

}  // namespace capi
}  // namespace tfd

extern "C" {

TF_Status* TF_NewStatus(void) { return new (std::nothrow) TF_Status(); }

void TF_DeleteStatus(TF_Status* s) { delete s; }

void TF_SetStatus(TF_Status* s, TF_Code code, const char* msg) {
  if (s == nullptr) return;
  s->code = code;
  s->message = (code == TF_OK || msg == nullptr) ? "" : msg;
}

void TF_SetStatusFromIOError(TF_Status* s, int error_code, const char* context) {
  if (s == nullptr) return;
  TF_Code code = TF_UNKNOWN;
  switch (error_code) {
    case 0: code = TF_OK; break;
    case ENOENT: case ENOTDIR: code = TF_NOT_FOUND; break;
    case EEXIST: code = TF_ALREADY_EXISTS; break;
    case EACCES: case EPERM: case EROFS: code = TF_PERMISSION_DENIED; break;
    case ENOSPC: case ENOMEM: case EMFILE: case ENFILE: code = TF_RESOURCE_EXHAUSTED; break;
    case EINVAL: case ENAMETOOLONG: case EISDIR: code = TF_INVALID_ARGUMENT; break;
    case ETIMEDOUT: code = TF_DEADLINE_EXCEEDED; break;
    case EAGAIN: case ECONNREFUSED: case ECONNRESET: code = TF_UNAVAILABLE; break;
    case ECANCELED: code = TF_CANCELLED; break;
    case ENOSYS: case ENOTSUP: code = TF_UNIMPLEMENTED; break;
    default: code = TF_UNKNOWN; break;
  }
  std::string msg = context != nullptr ? context : "";
  if (code != TF_OK) msg += std::string(msg.empty() ? "" : ": ") + std::strerror(error_code);
  TF_SetStatus(s, code, msg.c_str());
}

TF_Code TF_GetCode(const TF_Status* s) { return s == nullptr ? TF_INVALID_ARGUMENT : s->code; }

const char* TF_Message(const TF_Status* s) {
  return s == nullptr ? "TF_Message: status is NULL" : s->message.c_str();
}

}  // extern "C"
