#include "tests/multiworker/worker_common.h"

#include <cstdio>
#include <fstream>

#include "absl/strings/numbers.h"
#include "absl/strings/str_format.h"
#include "core/data/idx_file.h"
#include "core/distribute/mirrored_strategy.h"
#include "core/distribute/tf_config_resolver.h"
#include "core/framework/status.h"

namespace tfd {
namespace multiworker_test {

absl::Status ParseNamedFlags(int argc, char** argv, const std::map<std::string, int*>& ints,
                             const std::map<std::string, std::string*>& strings) {
  for (int i = 1; i < argc; ++i) {
    const std::string arg = argv[i];
    const size_t eq = arg.find('=');
    if (arg.rfind("--", 0) != 0 || eq == std::string::npos) {
      return InvalidArgument("expected --name=value, got ", arg);
    }
    const std::string name = arg.substr(2, eq - 2), value = arg.substr(eq + 1);
    if (auto it = ints.find(name); it != ints.end()) {
      if (!absl::SimpleAtoi(value, it->second)) {
        return InvalidArgument("--", name, ": not a number");
      }
    } else if (auto it = strings.find(name); it != strings.end()) {
      *it->second = value;
    } else {
      return InvalidArgument("unknown flag --", name);
    }
  }
  return absl::OkStatus();
}

absl::StatusOr<std::vector<Tensor>> LoadFashionMnistTestRows(int64_t rows) {
  const std::string dir = data::kFashionMnistDir;
  TFD_ASSIGN_OR_RETURN(Tensor images, data::ReadIdxFile(dir + "/t10k-images-idx3-ubyte.gz"));
  TFD_ASSIGN_OR_RETURN(Tensor labels, data::ReadIdxFile(dir + "/t10k-labels-idx1-ubyte.gz"));
  if (images.dim(0) < rows) return InvalidArgument("only ", images.dim(0), " images");
  Tensor x(DT_FLOAT, {rows, 784});
  Tensor y(DT_INT32, {rows});
  const uint8_t* px = images.data<uint8_t>();
  for (int64_t i = 0; i < rows * 784; ++i) x.data<float>()[i] = px[i] / 255.0f;
  for (int64_t i = 0; i < rows; ++i) y.data<int32_t>()[i] = labels.data<uint8_t>()[i];
  return std::vector<Tensor>{x, y};
}

absl::StatusOr<std::unique_ptr<distribute::Strategy>> MakeWorkerStrategy(
    const std::string& name, int replicas, int startup_timeout_s,
    distribute::MultiWorkerMirroredStrategy** multi_worker,
    const distribute::CommunicationOptions& communication) {
  *multi_worker = nullptr;
  if (name == "mirrored") {
    distribute::ReplicatedStrategyOptions mirrored;
    mirrored.communication.overlap_backward_pass = communication.overlap_backward_pass;
    mirrored.communication.bytes_per_pack = communication.bytes_per_pack;
    return distribute::MirroredStrategy::WithCpuReplicas(replicas, mirrored);
  }
  if (name != "multi_worker") {
    return InvalidArgument("--strategy must be multi_worker or mirrored, got ", name);
  }
  distribute::MultiWorkerMirroredStrategyOptions options;
  options.startup_timeout = absl::Seconds(startup_timeout_s);
  options.communication = communication;
  options.communication.timeout = absl::Seconds(30);
  options.heartbeat_interval = absl::Milliseconds(250);
  options.heartbeat_timeout = absl::Seconds(5);
  options.local_replicas = replicas;
  TFD_ASSIGN_OR_RETURN(auto strategy, distribute::MultiWorkerMirroredStrategy::FromClusterResolver(
                                          distribute::TfConfigClusterResolver(), options));
  *multi_worker = strategy.get();
  return strategy;
}

absl::Status WriteResults(const std::string& path, const std::vector<double>& losses,
                          int64_t steps, const std::vector<nn::Weight>& weights) {
  const std::string tmp = path + ".tmp";
  {
    std::ofstream out(tmp);
    for (size_t i = 0; i < losses.size(); ++i) {
      out << "loss " << i << " " << absl::StrFormat("%.9g", losses[i]) << "\n";
    }
    if (steps >= 0) out << "steps_trained " << steps << "\n";
    for (const nn::Weight& w : weights) {
      const Tensor value = w->component(0).Peek();
      out << w->name() << " " << value.NumElements() << "\n";
      for (float v : value.flat<float>()) out << absl::StrFormat("%.9g", v) << "\n";
    }
    if (!out) return Internal("cannot write ", tmp);
  }
  if (std::rename(tmp.c_str(), path.c_str()) != 0) return Internal("cannot rename ", tmp);
  return absl::OkStatus();
}

}  // namespace multiworker_test
}  // namespace tfd
