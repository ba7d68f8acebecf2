// Model: the base of Sequential and Functional (tf.keras.Model): a layer
// made of layers.
//
// A model's weights are its layers' weights, layer by layer in the order
// of layers(), each weight once (a shared layer counts once):
// trainable_weights() the trainable ones in that order,
// non_trainable_weights() the others (all of them when the model's
// trainable flag is off); set_trainable() sets the flag of every layer, as
// Keras does. TrainableVariables() is what an optimizer updates and a
// GradientTape differentiates (through LocalVariables(), layer.h), and
// Call(x, training) is the forward pass: the two hooks a training loop
// (Compile/Fit, to come) needs.
//
// Summary() prints the Keras table (summary.h) with each layer's output
// shape as recorded by the model's graph. A model not yet built has no
// summary (FAILED_PRECONDITION, Keras's message).
//
// Thread safety: as Layer; a built model may be called from replica
// threads at once.
//
//   TFD_ASSIGN_OR_RETURN(std::string text, model->Summary());
//   GradientTape tape;
//   TFD_ASSIGN_OR_RETURN(Tensor logits, model->Call(x, /*training=*/true));
//   ... tape.Gradient(loss, LocalVariables(model->TrainableVariables()));
#ifndef TFD_CORE_NN_MODEL_H_
#define TFD_CORE_NN_MODEL_H_

#include <atomic>
#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "core/nn/layer.h"
#include "core/nn/optimizer.h"
#include "core/nn/summary.h"

namespace tfd {
namespace nn {

class Model : public Layer {
 public:
  // The layers in Keras's order (model.layers): a Sequential's own layers;
  // a functional model's layers by decreasing depth, InputLayers included.
  virtual std::vector<std::shared_ptr<Layer>> layers() const = 0;
  // The layer called `name`; NOT_FOUND otherwise.
  absl::StatusOr<std::shared_ptr<Layer>> GetLayer(absl::string_view name) const;

  std::vector<Weight> weights() const override;
  std::vector<Weight> trainable_weights() const override;
  std::vector<Weight> non_trainable_weights() const override;
  void set_trainable(bool trainable) override;

  // The variables an optimizer updates: trainable_weights().
  std::vector<Weight> TrainableVariables() const { return trainable_weights(); }

  // The summary text, one line per "\n" (each line ends with it).
  absl::StatusOr<std::string> Summary() const;
  // Calls `print_fn` with each line, as model.summary(print_fn=...).
  absl::Status Summary(const std::function<void(const std::string&)>& print_fn) const;
  // The table Summary() formats.
  absl::StatusOr<SummaryTable> MakeSummaryTable() const;

  // Keras's model.stop_training: a callback sets it to end Fit after the
  // current batch; Fit clears it when it starts. Thread-safe.
  bool stop_training() const { return stop_training_.load(std::memory_order_acquire); }
  void set_stop_training(bool stop) { stop_training_.store(stop, std::memory_order_release); }

  // The optimizer given to Compile (Keras's model.optimizer), owned by the
  // model; null before Compile.
  Optimizer* optimizer() const { return optimizer_.get(); }

 protected:
  Model(absl::string_view class_name, const LayerOptions& options) : Layer(class_name, options) {}
  bool autocast() const override { return false; }

  // Whether the summary uses the three-column layout.
  virtual bool SequentialLike() const = 0;
  // The "Connected to" entries of `layer` within this model.
  virtual std::vector<std::string> ConnectionsOf(const Layer& layer) const { return {}; }

 private:
  std::shared_ptr<Optimizer> optimizer_;
  std::atomic<bool> stop_training_{false};
};

// Keras's layer.output_shape as the summary prints it: the shape of the
// layer's calls when they agree ("multiple" when they differ or there are
// none); an InputLayer's in a list, "[(None, 8)]".
std::string OutputShapeText(const Layer& layer);

}  // namespace nn
}  // namespace tfd

#endif  // TFD_CORE_NN_MODEL_H_
