// `tfd train`: loads Fashion-MNIST, builds the model under the chosen
// strategy, prints its summary, trains it with Model::Fit (--loop=fit, the
// default) or the custom training loop (--loop=custom), and ends with one
// line
//
//   test_loss: 0.2563 - test_accuracy: 0.9087
//
// from evaluating the test set.
#ifndef TFD_TOOLS_TFD_TRAIN_COMMAND_H_
#define TFD_TOOLS_TFD_TRAIN_COMMAND_H_

#include <cstdio>

#include "absl/status/status.h"
#include "tools/tfd/train_flags.h"

namespace tfd {
namespace cli {

// Runs the training `flags` describe, writing progress to `out` (Fit's
// progress bar writes to stdout). With --logdir, TensorBoard event files go
// to <logdir>/train and <logdir>/validation and the epochs' logs to
// <logdir>/training.csv. Errors of loading, building, training or writing
// logs pass through.
absl::Status RunTrain(const TrainFlags& flags, std::FILE* out);

}  // namespace cli
}  // namespace tfd

#endif  // TFD_TOOLS_TFD_TRAIN_COMMAND_H_
