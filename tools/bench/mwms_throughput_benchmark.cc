// MultiWorkerMirroredStrategy throughput next to MirroredStrategy, in one
// run: the Fashion-MNIST MLP (or CNN) of tools/tfd trained by a custom
// training step (Adam, global batch --global_batch) under
//   Mirrored(2L)  one process, 2L CPU replicas sharing the cores;
//   MWMS 2xL      two worker processes on localhost (TF_CONFIG, Gloo) of L
//                 local replicas each (--local_replicas, default 1), each
//                 process pinned to its half of the cores.
// So both runs put L replicas on each half of the machine and differ only
// in how the halves talk: shared memory between threads, or Gloo over
// loopback TCP between processes (hierarchically when L > 1).
//
// Every run is a fresh set of processes (this binary again, with --role)
// that trains --warmup steps, then times --steps steps: wall time on the
// chief (every step ends in an all-reduce, so the workers move in lock
// step) and the CPU time of all its processes. The runs alternate (Mirrored
// first in even rounds, MWMS first in odd ones) for --rounds rounds, so a
// machine shared with other work slows both alike; the summary gives the
// medians and the median of the per-round ratios MWMS / Mirrored.
//
//   bazel build -c opt //tools/bench:mwms_throughput_benchmark
//   bazel-bin/tools/bench/mwms_throughput_benchmark --model=fashion_mlp --rounds=5
//   bazel-bin/tools/bench/mwms_throughput_benchmark --local_replicas=2   (2x2 vs Mirrored(4))
#include <sched.h>
#include <signal.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <cstdio>
#include <fstream>
#include <iostream>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/time/clock.h"
#include "core/data/distributed_dataset.h"
#include "core/data/transforms.h"
#include "core/distribute/multi_worker_mirrored_strategy.h"
#include "core/distribute/testing/free_port.h"
#include "core/distribute/tf_config_resolver.h"
#include "core/framework/status.h"
#include "tests/multiworker/worker_common.h"
#include "core/kernels/random_seed.h"
#include "core/autodiff/gradient_tape.h"
#include "core/nn/adam.h"
#include "core/nn/losses.h"
#include "core/nn/losses_utils.h"
#include "tools/tfd/fashion_models.h"
#include "tools/tfd/strategy_factory.h"

namespace tfd {
namespace {

struct Flags {
  std::string model = "fashion_mlp";
  int global_batch = 64;
  int warmup = 5;
  int steps = 50;
  int rounds = 5;
  int local_replicas = 1;
  // Set in the processes this binary starts.
  std::string role;  // "mirrored" or "worker"
  std::string out;
};

absl::StatusOr<Flags> ParseFlags(int argc, char** argv) {
  Flags flags;
  const std::map<std::string, int*> counts = {{"global_batch", &flags.global_batch},
                                              {"warmup", &flags.warmup},
                                              {"steps", &flags.steps},
                                              {"rounds", &flags.rounds},
                                              {"local_replicas", &flags.local_replicas}};
  TFD_RETURN_IF_ERROR(multiworker_test::ParseNamedFlags(
      argc, argv, counts, {{"model", &flags.model}, {"role", &flags.role}, {"out", &flags.out}}));
  for (const auto& [name, value] : counts) {
    if (*value < 1) return InvalidArgument("--", name, " must be positive, got ", *value);
  }
  return flags;
}

double CpuSeconds() {
  rusage usage;
  getrusage(RUSAGE_SELF, &usage);
  return usage.ru_utime.tv_sec + usage.ru_stime.tv_sec +
         (usage.ru_utime.tv_usec + usage.ru_stime.tv_usec) * 1e-6;
}

// One global batch of deterministic images and labels as the strategy's
// distributed dataset splits it: this process's replicas' elements.
absl::StatusOr<std::vector<data::Element>> LocalBatches(distribute::Strategy& strategy,
                                                        int64_t global_batch) {
  Tensor images(DT_FLOAT, {global_batch, 28, 28, 1});
  for (int64_t i = 0; i < images.NumElements(); ++i) {
    images.data<float>()[i] = static_cast<float>(i % 251) / 250.0f;
  }
  Tensor labels(DT_INT32, {global_batch});
  for (int64_t i = 0; i < global_batch; ++i) labels.data<int32_t>()[i] = i % 10;
  TFD_ASSIGN_OR_RETURN(data::DatasetPtr ds, data::FromTensorSlices({images, labels}));
  TFD_ASSIGN_OR_RETURN(ds, data::Batch(ds, global_batch, /*drop_remainder=*/true));
  data::DistributeOptions options;
  options.num_workers = strategy.num_workers();
  options.worker_index = strategy.worker_rank();
  TFD_ASSIGN_OR_RETURN(data::DistributedDatasetPtr dist,
                       data::DistributeDataset(ds, strategy.num_replicas_in_sync(), options));
  TFD_ASSIGN_OR_RETURN(auto it, dist->MakeIterator());
  TFD_ASSIGN_OR_RETURN(auto step, it->GetNext());
  if (!step) return Internal("no batch");
  return *step;
}

// A process of one run: trains and writes "<wall seconds> <cpu seconds>"
// of the timed steps to --out (per worker: --out.<rank>).
absl::Status RunRole(const Flags& flags) {
  std::unique_ptr<distribute::Strategy> strategy;
  distribute::MultiWorkerMirroredStrategy* mwms = nullptr;
  if (flags.role == "mirrored") {
    TFD_ASSIGN_OR_RETURN(strategy, cli::MakeStrategy("mirrored", 2 * flags.local_replicas));
  } else if (flags.role == "worker") {
    distribute::MultiWorkerMirroredStrategyOptions options;
    options.local_replicas = flags.local_replicas;
    TFD_ASSIGN_OR_RETURN(auto made, distribute::MultiWorkerMirroredStrategy::FromClusterResolver(
                                        distribute::TfConfigClusterResolver(), options));
    mwms = made.get();
    strategy = std::move(made);
  } else {
    return InvalidArgument("--role must be mirrored or worker, got ", flags.role);
  }
  SetRandomSeed(1);
  std::shared_ptr<nn::Sequential> model;
  std::unique_ptr<nn::Adam> optimizer;
  {
    distribute::StrategyScope scope(strategy.get());
    TFD_ASSIGN_OR_RETURN(model, cli::MakeFashionModel(flags.model));
    TFD_ASSIGN_OR_RETURN(optimizer, nn::Adam::Create({}));
  }
  nn::SparseCategoricalCrossentropy::Options loss_options;
  loss_options.from_logits = true;
  loss_options.reduction = nn::Reduction::kNone;
  nn::SparseCategoricalCrossentropy loss_fn(loss_options);
  TFD_ASSIGN_OR_RETURN(std::vector<data::Element> batches,
                       LocalBatches(*strategy, flags.global_batch));
  // The custom-training step of TensorFlow's tutorial: each replica's loss
  // over the GLOBAL batch, gradients all-reduced by Minimize while the
  // backward pass runs (CommunicationOptions::overlap_backward_pass), and
  // the job-wide loss reduced across workers.
  auto step = [&]() -> absl::Status {
    TFD_ASSIGN_OR_RETURN(
        distribute::PerReplica out,
        strategy->Run([&](distribute::ReplicaContext& ctx) -> absl::StatusOr<std::vector<Tensor>> {
          const data::Element& batch =
              batches[ctx.replica_id_in_sync_group() % strategy->num_local_replicas()];
          GradientTape tape;
          TFD_ASSIGN_OR_RETURN(Tensor logits, model->Call(batch[0], /*training=*/true));
          TFD_ASSIGN_OR_RETURN(Tensor per_example, loss_fn.Call(batch[1], logits));
          TFD_ASSIGN_OR_RETURN(Tensor loss, nn::ComputeAverageLoss(per_example, flags.global_batch));
          TFD_RETURN_IF_ERROR(optimizer->Minimize(loss, model->TrainableVariables(), tape));
          return std::vector<Tensor>{loss};
        }));
    TFD_ASSIGN_OR_RETURN(std::vector<Tensor> losses, strategy->ExperimentalLocalResults(out, 0));
    return strategy->Reduce(distribute::ReduceOp::kSum, losses).status();
  };
  for (int i = 0; i < flags.warmup; ++i) TFD_RETURN_IF_ERROR(step());
  const absl::Time start = absl::Now();
  const double cpu_start = CpuSeconds();
  for (int i = 0; i < flags.steps; ++i) TFD_RETURN_IF_ERROR(step());
  const double wall = absl::ToDoubleSeconds(absl::Now() - start);
  const double cpu = CpuSeconds() - cpu_start;
  const std::string path = mwms != nullptr ? absl::StrCat(flags.out, ".", mwms->worker_rank())
                                           : flags.out;
  {
    std::ofstream file(path + ".tmp");
    file << wall << " " << cpu << "\n";
    if (!file) return Internal("cannot write ", path);
  }
  if (std::rename((path + ".tmp").c_str(), path.c_str()) != 0) {
    return Internal("cannot rename ", path, ".tmp");
  }
  if (mwms != nullptr) TFD_RETURN_IF_ERROR(mwms->Shutdown());
  return absl::OkStatus();
}

// The cores this process may run on.
std::vector<int> AllowedCpus() {
  std::vector<int> cpus;
  cpu_set_t set;
  if (sched_getaffinity(0, sizeof(set), &set) == 0) {
    for (int c = 0; c < CPU_SETSIZE; ++c) {
      if (CPU_ISSET(c, &set)) cpus.push_back(c);
    }
  }
  return cpus;
}

// Starts this binary with `args` and TF_CONFIG `tf_config` (if any),
// pinned to `cpus` (all when empty).
pid_t Spawn(const std::vector<std::string>& args, const std::string& tf_config,
            const std::vector<int>& cpus) {
  const pid_t pid = fork();
  if (pid != 0) return pid;
  if (!cpus.empty()) {
    cpu_set_t set;
    CPU_ZERO(&set);
    for (int c : cpus) CPU_SET(c, &set);
    sched_setaffinity(0, sizeof(set), &set);
  }
  if (!tf_config.empty()) setenv("TF_CONFIG", tf_config.c_str(), 1);
  std::vector<char*> argv;
  for (const std::string& a : args) argv.push_back(const_cast<char*>(a.c_str()));
  argv.push_back(nullptr);
  execv("/proc/self/exe", argv.data());
  _exit(127);
}

// Waits for every child; kills them all when one fails or after `timeout`.
absl::Status WaitAll(const std::vector<pid_t>& pids, absl::Duration timeout) {
  const absl::Time deadline = absl::Now() + timeout;
  std::vector<bool> done(pids.size(), false);
  absl::Status status;
  for (size_t finished = 0; finished < pids.size();) {
    for (size_t i = 0; i < pids.size(); ++i) {
      int child_status = 0;
      if (done[i] || waitpid(pids[i], &child_status, WNOHANG) != pids[i]) continue;
      done[i] = true;
      ++finished;
      if (!WIFEXITED(child_status) || WEXITSTATUS(child_status) != 0) {
        status = Internal("a benchmark process failed (see its stderr above)");
      }
    }
    if (finished == pids.size()) break;
    if (!status.ok() || absl::Now() > deadline) {
      for (size_t i = 0; i < pids.size(); ++i) {
        if (!done[i]) {
          kill(pids[i], SIGKILL);
          waitpid(pids[i], nullptr, 0);
        }
      }
      return status.ok() ? absl::DeadlineExceededError(
                               absl::StrCat("benchmark processes still running after ",
                                            absl::FormatDuration(timeout)))
                         : status;
    }
    absl::SleepFor(absl::Milliseconds(20));
  }
  return status;
}

struct Measurement {
  double examples_per_second = 0;
  double cpu_ms_per_example = 0;
};

absl::StatusOr<std::vector<double>> ReadPair(const std::string& path) {
  std::ifstream in(path);
  double wall = 0, cpu = 0;
  if (!(in >> wall >> cpu)) return Internal("no result in ", path);
  return std::vector<double>{wall, cpu};
}

// One run of `role` ("mirrored" or "worker"): fresh processes, one result.
absl::StatusOr<Measurement> Measure(const Flags& flags, const std::string& role, int round) {
  const char* tmp = std::getenv("TMPDIR");
  const std::string out = absl::StrCat(tmp != nullptr ? tmp : "/tmp", "/mwms_throughput.",
                                       getpid(), ".", role, round);
  std::vector<std::string> args = {"mwms_throughput_benchmark", "--role=" + role,
                                   "--out=" + out, "--model=" + flags.model,
                                   absl::StrCat("--global_batch=", flags.global_batch),
                                   absl::StrCat("--warmup=", flags.warmup),
                                   absl::StrCat("--local_replicas=", flags.local_replicas),
                                   absl::StrCat("--steps=", flags.steps)};
  std::vector<pid_t> pids;
  std::vector<std::string> results;
  if (role == "mirrored") {
    pids.push_back(Spawn(args, "", {}));
    results.push_back(out);
  } else {
    TFD_ASSIGN_OR_RETURN(std::vector<int> ports, testing::PickFreePorts(2));
    const std::vector<int> cpus = AllowedCpus();
    const size_t half = std::max<size_t>(1, cpus.size() / 2);
    for (int w = 0; w < 2; ++w) {
      std::vector<int> share(cpus.begin() + std::min(cpus.size(), w * half),
                             w == 0 ? cpus.begin() + std::min(cpus.size(), half) : cpus.end());
      const std::string tf_config =
          absl::StrCat(R"({"cluster": {"worker": ["127.0.0.1:)", ports[0], R"(", "127.0.0.1:)",
                       ports[1], R"("]}, "task": {"type": "worker", "index": )", w, "}}");
      pids.push_back(Spawn(args, tf_config, share));
      results.push_back(absl::StrCat(out, ".", w));
    }
  }
  TFD_RETURN_IF_ERROR(WaitAll(pids, absl::Minutes(10)));
  Measurement m;
  double cpu = 0;
  for (size_t i = 0; i < results.size(); ++i) {
    TFD_ASSIGN_OR_RETURN(std::vector<double> pair, ReadPair(results[i]));
    std::remove(results[i].c_str());
    // The chief's clock (every worker's steps end together).
    if (i == 0) m.examples_per_second = flags.steps * flags.global_batch / pair[0];
    cpu += pair[1];
  }
  m.cpu_ms_per_example = 1000 * cpu / (flags.steps * flags.global_batch);
  return m;
}

double Median(std::vector<double> v) {
  std::sort(v.begin(), v.end());
  const size_t n = v.size();
  return n % 2 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2;
}

absl::Status Compare(const Flags& flags) {
  const int l = flags.local_replicas;
  std::printf("%s, global batch %d, %d timed steps after %d, %zu cores\n", flags.model.c_str(),
              flags.global_batch, flags.steps, flags.warmup, AllowedCpus().size());
  std::printf("%-6s %18s %18s %18s %18s %8s\n", "round",
              absl::StrCat("Mirrored(", 2 * l, ") ex/s").c_str(),
              absl::StrCat("MWMS 2x", l, " ex/s").c_str(), "Mirrored cpu ms/ex", "MWMS cpu ms/ex",
              "ratio");
  std::vector<double> mirrored, mwms, ratios;
  for (int round = 0; round < flags.rounds; ++round) {
    Measurement a, b;
    if (round % 2 == 0) {
      TFD_ASSIGN_OR_RETURN(a, Measure(flags, "mirrored", round));
      TFD_ASSIGN_OR_RETURN(b, Measure(flags, "worker", round));
    } else {
      TFD_ASSIGN_OR_RETURN(b, Measure(flags, "worker", round));
      TFD_ASSIGN_OR_RETURN(a, Measure(flags, "mirrored", round));
    }
    mirrored.push_back(a.examples_per_second);
    mwms.push_back(b.examples_per_second);
    ratios.push_back(b.examples_per_second / a.examples_per_second);
    std::printf("%-6d %18.1f %18.1f %18.3f %18.3f %8.3f\n", round, a.examples_per_second,
                b.examples_per_second, a.cpu_ms_per_example, b.cpu_ms_per_example,
                ratios.back());
    std::fflush(stdout);
  }
  std::printf("median %18.1f %18.1f %18s %18s %8.3f\n", Median(mirrored), Median(mwms), "", "",
              Median(ratios));
  return absl::OkStatus();
}

}  // namespace
}  // namespace tfd

int main(int argc, char** argv) {
  signal(SIGPIPE, SIG_IGN);
  absl::StatusOr<tfd::Flags> flags = tfd::ParseFlags(argc, argv);
  absl::Status status = !flags.ok()             ? flags.status()
                        : flags->role.empty() ? tfd::Compare(*flags)
                                              : tfd::RunRole(*flags);
  if (!status.ok()) {
    std::cerr << status << std::endl;
    return 1;
  }
  return 0;
}
