// TFD_Model saving: checkpoints and SavedModel export.
#include "c_api/internal/guard.h"
#include "c_api/internal/tfd_structs.h"
#include "tfd/saving.h"

namespace {

absl::Status CheckArgs(const char* where, const TFD_Model* model, const char* path,
                       const char* path_name) {
  TFD_RETURN_IF_ERROR(tfd::capi::NotNull(where, model, "model"));
  return tfd::capi::NotNull(where, path, path_name);
}

}  // namespace

extern "C" {

TF_Buffer* TFD_ModelSaveCheckpoint(TFD_Model* model, const char* file_prefix, TF_Status* status) {
  return tfd::capi::Guard<TF_Buffer*>(
      "TFD_ModelSaveCheckpoint", status, nullptr, [&]() -> absl::StatusOr<TF_Buffer*> {
        TFD_RETURN_IF_ERROR(CheckArgs("TFD_ModelSaveCheckpoint", model, file_prefix, "file_prefix"));
        return absl::UnimplementedError(
            "TFD_ModelSaveCheckpoint: object-based checkpoints are not in this build of tfd yet");
      });
}

void TFD_ModelRestoreCheckpoint(TFD_Model* model, const char* prefix, TF_Status* status) {
  tfd::capi::GuardVoid("TFD_ModelRestoreCheckpoint", status, [&]() -> absl::Status {
    TFD_RETURN_IF_ERROR(CheckArgs("TFD_ModelRestoreCheckpoint", model, prefix, "prefix"));
    return absl::UnimplementedError(
        "TFD_ModelRestoreCheckpoint: object-based checkpoints are not in this build of tfd yet");
  });
}

void TFD_ModelExportSavedModel(TFD_Model* model, const char* export_dir, TF_Status* status) {
  tfd::capi::GuardVoid("TFD_ModelExportSavedModel", status, [&]() -> absl::Status {
    TFD_RETURN_IF_ERROR(CheckArgs("TFD_ModelExportSavedModel", model, export_dir, "export_dir"));
    return absl::UnimplementedError(
        "TFD_ModelExportSavedModel: SavedModel export (graph tracing) is not in this build of "
        "tfd yet");
  });
}

}  // extern "C"
