// A linear regression (y = xW) trained under a strategy the way an
// optimizer does it: a GradientTape per replica, the replicas' gradients
// all-reduced (SUM) with the loss divided by the GLOBAL batch, then each
// component of W updated with AssignSub (central storage: once, inside
// MergeCall). Strategy tests train it under a strategy and under one host
// device and compare the two.
#ifndef TFD_CORE_DISTRIBUTE_LINEAR_REGRESSION_TESTUTIL_H_
#define TFD_CORE_DISTRIBUTE_LINEAR_REGRESSION_TESTUTIL_H_

#include <memory>
#include <random>
#include <utility>
#include <vector>

#include "core/autodiff/gradient_tape.h"
#include "core/distribute/strategy.h"
#include "core/framework/device.h"
#include "core/framework/execute.h"
#include "core/framework/status.h"
#include "core/framework/tensor_testutil.h"

namespace tfd {
namespace distribute {

// A host tensor of standard normal values drawn from `seed`.
template <typename T>
Tensor RandomNormal(const TensorShape& shape, int seed) {
  std::mt19937 gen(seed);
  std::normal_distribution<double> dist(0, 1);
  Tensor t(DataTypeToEnum<T>::value, shape);
  for (T& x : t.flat<T>()) x = static_cast<T>(dist(gen));
  return t;
}

// What a training run leaves behind.
struct TrainedRegression {
  std::vector<Tensor> components;        // W's components at the end, copied to the host.
  std::vector<const Device*> devices;    // Where each component lives.
  std::vector<double> losses;            // The global loss of each step (Reduce SUM).
};

// Trains W (initially w0, [features, 1]) for `steps` steps on x
// ([global batch, features]) and y ([global batch, 1]) under `strategy`,
// whose replicas each take an equal slice of the batch; learning rate 0.1.
template <typename T>
absl::StatusOr<TrainedRegression> TrainLinearRegression(Strategy& strategy, const Tensor& x,
                                                        const Tensor& y, const Tensor& w0,
                                                        int steps) {
  std::shared_ptr<DistributedVariable> w;
  {
    StrategyScope scope(&strategy);
    VariableSpec spec;
    spec.name = "dense/kernel";
    spec.initial_value = [&]() -> absl::StatusOr<Tensor> { return w0; };
    TFD_ASSIGN_OR_RETURN(w, CreateVariable(spec));
  }
  if (w->dtype() != DataTypeToEnum<T>::value) return Internal("unexpected dtype");
  const int n = strategy.num_replicas_in_sync();
  const int64_t global_batch = x.dim(0);
  const int64_t per_replica = global_batch / n;
  const Tensor lr = Tensor::Scalar<T>(T(0.1));
  const Tensor global_batch_size = Tensor::Scalar<T>(T(global_batch));
  const Tensor all_axes = test::AsTensor<int32_t>({0, 1}, {2});
  TrainedRegression trained;
  for (int step = 0; step < steps; ++step) {
    TFD_ASSIGN_OR_RETURN(
        PerReplica out,
        strategy.Run([&](ReplicaContext& ctx) -> absl::StatusOr<std::vector<Tensor>> {
          const int r = ctx.replica_id_in_sync_group();
          // This replica's share of the global batch (views, no copies).
          TFD_ASSIGN_OR_RETURN(Tensor xs, x.Slice(r * per_replica, (r + 1) * per_replica));
          TFD_ASSIGN_OR_RETURN(Tensor ys, y.Slice(r * per_replica, (r + 1) * per_replica));
          GradientTape tape;
          // xs: [batch, features], W: [features, 1] -> [batch, 1]
          TFD_ASSIGN_OR_RETURN(Tensor pred, Execute1("MatMul", {xs, w->Read()}));
          TFD_ASSIGN_OR_RETURN(Tensor err, Execute1("SquaredDifference", {pred, ys}));
          TFD_ASSIGN_OR_RETURN(Tensor total, Execute1("Sum", {err, all_axes}));
          // compute_average_loss: divided by the global batch, not the replica's.
          TFD_ASSIGN_OR_RETURN(Tensor loss, Execute1("RealDiv", {total, global_batch_size}));
          TFD_ASSIGN_OR_RETURN(std::vector<Tensor> grads, tape.Gradient(loss, {&w->Local()}));
          TFD_ASSIGN_OR_RETURN(grads, ctx.AllReduce(ReduceOp::kSum, grads));
          TFD_ASSIGN_OR_RETURN(Tensor update, Execute1("Mul", {grads[0], lr}));
          if (w->num_components() == n) {
            TFD_RETURN_IF_ERROR(w->Local().AssignSub(update));
          } else {
            // One central component: update it once per step.
            TFD_RETURN_IF_ERROR(ctx.MergeCall([&] { return w->component(0).AssignSub(update); }));
          }
          return std::vector<Tensor>{loss};
        }));
    TFD_ASSIGN_OR_RETURN(std::vector<Tensor> losses, strategy.ExperimentalLocalResults(out, 0));
    TFD_ASSIGN_OR_RETURN(Tensor loss, strategy.Reduce(ReduceOp::kSum, losses));
    TFD_ASSIGN_OR_RETURN(Tensor host_loss, loss.CopyTo(HostDevice()));
    trained.losses.push_back(static_cast<double>(host_loss.scalar<T>()));
  }
  for (int i = 0; i < w->num_components(); ++i) {
    trained.devices.push_back(w->component(i).device());
    TFD_ASSIGN_OR_RETURN(Tensor host, w->component(i).Peek().CopyTo(HostDevice()));
    trained.components.push_back(std::move(host));
  }
  return trained;
}

}  // namespace distribute
}  // namespace tfd

#endif  // TFD_CORE_DISTRIBUTE_LINEAR_REGRESSION_TESTUTIL_H_
