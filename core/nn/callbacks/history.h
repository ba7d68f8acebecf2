// History: the callback Fit always adds (tf.keras.callbacks.History). It
// records the epoch numbers and each epoch's logs, one series per key in
// the order the keys first appeared ("loss", metrics, "val_loss", ...).
// Fit returns it.
//
//   TFD_ASSIGN_OR_RETURN(std::shared_ptr<History> history, model->Fit(ds, options));
//   std::vector<double> losses = history->Get("loss");
#ifndef TFD_CORE_NN_CALLBACKS_HISTORY_H_
#define TFD_CORE_NN_CALLBACKS_HISTORY_H_

#include <string>
#include <utility>
#include <vector>

#include "core/nn/callbacks/callback.h"

namespace tfd {
namespace nn {

class History : public Callback {
 public:
  using Series = std::pair<std::string, std::vector<double>>;

  // Clears the epoch list; like Keras, keeps the series of earlier runs.
  absl::Status OnTrainBegin(const Logs& logs) override;
  absl::Status OnEpochEnd(int epoch, Logs& logs) override;

  // The epochs seen since the last OnTrainBegin (Keras's history.epoch).
  const std::vector<int>& epoch() const { return epoch_; }
  // Keras's history.history, in key order.
  const std::vector<Series>& history() const { return history_; }
  // The series of `key`; empty when there is none.
  std::vector<double> Get(const std::string& key) const;

 private:
  std::vector<int> epoch_;
  std::vector<Series> history_;
};

}  // namespace nn
}  // namespace tfd

#endif  // TFD_CORE_NN_CALLBACKS_HISTORY_H_
