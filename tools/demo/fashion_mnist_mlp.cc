// The core runtime end to end, before the Keras-style layer exists: a
// 784-128-10 MLP trained on Fashion-MNIST with GradientTape and plain SGD,
// every op going through Execute. Prints the loss per epoch and the test
// accuracy.
//
//   bazel run //tools/demo:fashion_mnist_mlp -- --epochs=3
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <string>
#include <vector>

#include "absl/strings/numbers.h"
#include "absl/strings/match.h"
#include "core/autodiff/gradient_tape.h"
#include "core/data/idx_file.h"
#include "core/framework/execute.h"
#include "core/framework/status.h"
#include "core/framework/variable.h"

namespace tfd {
namespace {

struct Options {
  int epochs = 3;
  int batch_size = 64;
  double learning_rate = 0.1;
  int64_t seed = 42;
  std::string data_dir = data::kFashionMnistDir;
};

// Images as float32 [n, 784] in [0, 1]; labels as int32 [n].
absl::Status LoadSplit(const std::string& dir, const std::string& split, Tensor* images,
                       Tensor* labels) {
  TFD_ASSIGN_OR_RETURN(Tensor raw_images,
                       data::ReadIdxFile(dir + "/" + split + "-images-idx3-ubyte.gz"));
  TFD_ASSIGN_OR_RETURN(Tensor raw_labels,
                       data::ReadIdxFile(dir + "/" + split + "-labels-idx1-ubyte.gz"));
  const int64_t n = raw_images.dim(0);
  if (raw_images.rank() != 3 || raw_labels.NumElements() != n) {
    return InvalidArgument("unexpected Fashion-MNIST shapes ", raw_images.shape().DebugString(),
                           " and ", raw_labels.shape().DebugString());
  }
  *images = Tensor(DT_FLOAT, {n, 784});
  *labels = Tensor(DT_INT32, {n});
  for (int64_t i = 0; i < n * 784; ++i) {
    images->data<float>()[i] = raw_images.data<uint8_t>()[i] / 255.0f;
  }
  for (int64_t i = 0; i < n; ++i) labels->data<int32_t>()[i] = raw_labels.data<uint8_t>()[i];
  return absl::OkStatus();
}

// Glorot-uniform initial weights, as Keras initializes Dense kernels.
absl::StatusOr<Tensor> GlorotUniform(int64_t fan_in, int64_t fan_out, int64_t seed) {
  const float limit = std::sqrt(6.0f / (fan_in + fan_out));
  Tensor shape = Tensor(DT_INT64, {2});
  shape.data<int64_t>()[0] = fan_in;
  shape.data<int64_t>()[1] = fan_out;
  TFD_ASSIGN_OR_RETURN(
      Tensor w, Execute1("RandomUniform", {shape},
                         AttrMap().Set("dtype", DT_FLOAT).Set("seed", seed).Set("seed2", fan_out)));
  for (float& v : w.flat<float>()) v = (2 * v - 1) * limit;
  return w;
}

struct Mlp {
  std::unique_ptr<Variable> w1, b1, w2, b2;

  std::vector<const Variable*> variables() const { return {w1.get(), b1.get(), w2.get(), b2.get()}; }

  absl::StatusOr<Tensor> Logits(const Tensor& x) const {
    TFD_ASSIGN_OR_RETURN(Tensor h, Execute1("MatMul", {x, w1->Read()}));
    TFD_ASSIGN_OR_RETURN(h, Execute1("BiasAdd", {h, b1->Read()}));
    TFD_ASSIGN_OR_RETURN(h, Execute1("Relu", {h}));
    TFD_ASSIGN_OR_RETURN(Tensor logits, Execute1("MatMul", {h, w2->Read()}));
    return Execute1("BiasAdd", {logits, b2->Read()});
  }
};

absl::StatusOr<Mlp> MakeMlp(int64_t seed) {
  Mlp m;
  TFD_ASSIGN_OR_RETURN(Tensor w1, GlorotUniform(784, 128, seed));
  TFD_ASSIGN_OR_RETURN(Tensor w2, GlorotUniform(128, 10, seed));
  TFD_ASSIGN_OR_RETURN(Tensor b1, Tensor::Zeros(DT_FLOAT, {128}));
  TFD_ASSIGN_OR_RETURN(Tensor b2, Tensor::Zeros(DT_FLOAT, {10}));
  m.w1 = std::make_unique<Variable>("dense/kernel", w1);
  m.b1 = std::make_unique<Variable>("dense/bias", b1);
  m.w2 = std::make_unique<Variable>("dense_1/kernel", w2);
  m.b2 = std::make_unique<Variable>("dense_1/bias", b2);
  return m;
}

absl::Status Run(const Options& opt) {
  Tensor train_x, train_y, test_x, test_y;
  TFD_RETURN_IF_ERROR(LoadSplit(opt.data_dir, "train", &train_x, &train_y));
  TFD_RETURN_IF_ERROR(LoadSplit(opt.data_dir, "t10k", &test_x, &test_y));
  TFD_ASSIGN_OR_RETURN(Mlp model, MakeMlp(opt.seed));
  const Tensor lr = Tensor::Scalar<float>(static_cast<float>(opt.learning_rate));
  const int64_t n = train_x.dim(0);
  const int64_t steps = n / opt.batch_size;
  std::printf("Training a 784-128-10 MLP on %lld Fashion-MNIST images, batch %d, SGD lr %g\n",
              static_cast<long long>(n), opt.batch_size, opt.learning_rate);

  for (int epoch = 1; epoch <= opt.epochs; ++epoch) {
    const auto start = std::chrono::steady_clock::now();
    double loss_sum = 0;
    for (int64_t step = 0; step < steps; ++step) {
      TFD_ASSIGN_OR_RETURN(Tensor x, train_x.Slice(step * opt.batch_size, (step + 1) * opt.batch_size));
      TFD_ASSIGN_OR_RETURN(Tensor y, train_y.Slice(step * opt.batch_size, (step + 1) * opt.batch_size));
      GradientTape tape;
      TFD_ASSIGN_OR_RETURN(Tensor logits, model.Logits(x));
      TFD_ASSIGN_OR_RETURN(std::vector<Tensor> xent,
                           Execute("SparseSoftmaxCrossEntropyWithLogits", {logits, y}));
      TFD_ASSIGN_OR_RETURN(Tensor loss, Execute1("Mean", {xent[0], Tensor::Scalar<int32_t>(0)}));
      const std::vector<const Variable*> vars = model.variables();
      TFD_ASSIGN_OR_RETURN(std::vector<Tensor> grads, tape.Gradient(loss, absl::MakeSpan(vars)));
      for (size_t i = 0; i < vars.size(); ++i) {
        TFD_ASSIGN_OR_RETURN(Tensor update, Execute1("Mul", {grads[i], lr}));
        TFD_RETURN_IF_ERROR(const_cast<Variable*>(vars[i])->AssignSub(update));
      }
      loss_sum += loss.scalar<float>();
    }
    const double seconds =
        std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    std::printf("Epoch %d/%d - %.1fs %.1fms/step - loss: %.4f\n", epoch, opt.epochs, seconds,
                1000 * seconds / steps, loss_sum / steps);
  }

  TFD_ASSIGN_OR_RETURN(Tensor logits, model.Logits(test_x));
  int64_t correct = 0;
  for (int64_t i = 0; i < logits.dim(0); ++i) {
    const float* row = logits.data<float>() + i * 10;
    const int best = static_cast<int>(std::max_element(row, row + 10) - row);
    correct += best == test_y.data<int32_t>()[i];
  }
  std::printf("test_accuracy: %.4f\n", static_cast<double>(correct) / logits.dim(0));
  return absl::OkStatus();
}

bool ParseFlags(int argc, char** argv, Options* opt) {
  for (int i = 1; i < argc; ++i) {
    absl::string_view arg = argv[i];
    const size_t eq = arg.find('=');
    absl::string_view name = arg.substr(0, eq);
    absl::string_view value = eq == absl::string_view::npos ? "" : arg.substr(eq + 1);
    bool ok = false;
    if (name == "--epochs") ok = absl::SimpleAtoi(value, &opt->epochs) && opt->epochs > 0;
    if (name == "--batch_size") ok = absl::SimpleAtoi(value, &opt->batch_size) && opt->batch_size > 0;
    if (name == "--learning_rate") ok = absl::SimpleAtod(value, &opt->learning_rate);
    if (name == "--seed") ok = absl::SimpleAtoi(value, &opt->seed);
    if (name == "--data_dir") ok = !(opt->data_dir = std::string(value)).empty();
    if (!ok) {
      std::fprintf(stderr, "bad flag: %s\n", argv[i]);
      return false;
    }
  }
  return true;
}

}  // namespace
}  // namespace tfd

int main(int argc, char** argv) {
  tfd::Options opt;
  if (!tfd::ParseFlags(argc, argv, &opt)) {
    std::fprintf(stderr,
                 "usage: fashion_mnist_mlp [--epochs=N] [--batch_size=B] [--learning_rate=L] "
                 "[--seed=S] [--data_dir=D]\n");
    return 2;
  }
  absl::Status s = tfd::Run(opt);
  if (!s.ok()) {
    std::fprintf(stderr, "error: %s\n", s.ToString().c_str());
    return 1;
  }
  return 0;
}
