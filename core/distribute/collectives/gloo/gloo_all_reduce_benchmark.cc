// All-reduce bus bandwidth between processes on loopback through Gloo
// (GlooCommunicator, as MultiWorkerMirroredStrategy uses it), for float32
// tensors of 1 KB to 256 MB, next to the bandwidth of one raw TCP stream on
// loopback, the ceiling that a ring over TCP works against.
//
// The benchmark process is rank 0: it serves the coordination service and
// starts TFD_BENCH_PROCESSES - 1 copies of itself (default 2 processes in
// all) as the other ranks. Before each benchmark run rank 0 broadcasts
// (bytes, iterations) to them, so every rank issues the same all-reduces;
// iteration counts are therefore fixed per size. Counters:
//   algbw  bytes of the tensor / time of one all-reduce (per second);
//   busbw  algbw * 2 (n - 1) / n, the bytes each rank's link carries, the
//          number comparable to the raw stream (NCCL's convention).
//
// Latency: BM_SmallAllReduce_* time all-reduces of 4 B and 1 KB through
// GlooCommunicator and through Gloo's own allreduce on the same
// connections (the difference is tfd's layer: the agreement on the call,
// copies), BM_SmallAllgather_RawGloo a two-way exchange of 8 bytes, and
// BM_LoopbackTcpPingPong the round trip of 4 bytes between two threads, the
// floor of any exchange on this machine.
//
//   bazel run -c opt //core/distribute/collectives/gloo:gloo_all_reduce_benchmark --
//       --benchmark_repetitions=5 --benchmark_report_aggregates_only=true   (one command)
//   TFD_BENCH_PROCESSES=4 bazel run -c opt ...   (4 processes)
#include <arpa/inet.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <signal.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cstdlib>
#include <cstring>
#include <iostream>
#include <memory>
#include <string>
#include <thread>
#include <vector>

#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "benchmark/benchmark.h"
#include "core/distribute/collectives/gloo/gloo_communicator.h"
#include "core/distribute/collectives/gloo/gloo_context.h"
#include "core/distribute/coordination/coordination_client.h"
#include "core/distribute/coordination/coordination_server.h"
#include "core/distribute/coordination/task_name.h"
#include "core/framework/status.h"
#include "core/distribute/collectives/gloo/gloo_status.h"
#include "gloo/allgather.h"
#include "gloo/allreduce.h"
#include "gloo/math.h"

namespace tfd {
namespace distribute {
namespace {

constexpr int64_t kMinBytes = 1 << 10;
constexpr int64_t kMaxBytes = int64_t{256} << 20;

// One rank's connection to the others.
struct Rank {
  std::unique_ptr<coordination::CoordinationServer> server;  // Rank 0 only.
  std::unique_ptr<coordination::CoordinationClient> client;
  std::shared_ptr<gloo::Context> context;
  std::unique_ptr<GlooCommunicator> comm;
};

// What every rank runs in one benchmark: an all-reduce through
// GlooCommunicator (as MultiWorkerMirroredStrategy does), Gloo's own
// allreduce on the same context without tfd's layer around it, or Gloo's
// allgather of one uint64.
enum Kind : int64_t { kCommunicator = 0, kRawGloo = 1, kRawAllgather = 2 };
Rank* g_rank = nullptr;

int EnvInt(const char* name, int fallback) {
  const char* value = std::getenv(name);
  int parsed = 0;
  return value != nullptr && absl::SimpleAtoi(value, &parsed) ? parsed : fallback;
}

absl::Status Connect(Rank& rank, const std::string& address, int index, int size) {
  coordination::CoordinationClientOptions options;
  options.connect_timeout = absl::Seconds(30);
  TFD_ASSIGN_OR_RETURN(rank.client, coordination::CoordinationClient::Connect(
                                        address, coordination::TaskName("worker", index), options));
  GlooContextOptions gloo;
  gloo.prefix = "bench/";
  gloo.rank = index;
  gloo.size = size;
  gloo.timeout = absl::Minutes(2);
  TFD_ASSIGN_OR_RETURN(rank.context, ConnectGlooContext(*rank.client, gloo));
  rank.comm = std::make_unique<GlooCommunicator>(rank.context);
  return absl::OkStatus();
}

// {bytes, iterations, kind} from rank 0; bytes < 0 ends the benchmark.
absl::StatusOr<std::vector<int64_t>> ShareCommand(int64_t bytes, int64_t iterations,
                                                  Kind kind = kCommunicator) {
  Tensor command(DT_INT64, {3});
  command.data<int64_t>()[0] = bytes;
  command.data<int64_t>()[1] = iterations;
  command.data<int64_t>()[2] = kind;
  TFD_ASSIGN_OR_RETURN(auto handle, g_rank->comm->Broadcast(command, {}));
  TFD_ASSIGN_OR_RETURN(std::vector<Tensor> out, handle->Wait());
  const int64_t* shared = out[0].data<int64_t>();
  return std::vector<int64_t>{shared[0], shared[1], shared[2]};
}

Tensor Filled(int64_t bytes) {
  Tensor t(DT_FLOAT, {bytes / 4});
  for (float& x : t.flat<float>()) x = 0.5f;
  return t;
}

// One collective of `kind` (Gloo's allreduce sums `input` in place).
absl::Status AllReduceOnce(Kind kind, Tensor& input) {
  if (kind == kCommunicator) return AllReduceAndWait(*g_rank->comm, {input}, {}).status();
  if (kind == kRawAllgather) {
    uint64_t mine = 1;
    std::vector<uint64_t> all(g_rank->context->size);
    gloo::AllgatherOptions options(g_rank->context);
    options.setInput(&mine, 1);
    options.setOutput(all.data(), all.size());
    return TFD_GLOO_CALL(gloo::allgather(options));
  }
  gloo::AllreduceOptions options(g_rank->context);
  options.setOutput(input.data<float>(), static_cast<size_t>(input.NumElements()));
  options.setReduceFunction(
      static_cast<void (*)(void*, const void*, const void*, size_t)>(&gloo::sum<float>));
  options.setAlgorithm(gloo::AllreduceOptions::Algorithm::RING);
  return TFD_GLOO_CALL(gloo::allreduce(options));
}

// The other ranks: run what rank 0 announces until it says stop.
int ServeOtherRank() {
  while (true) {
    absl::StatusOr<std::vector<int64_t>> command = ShareCommand(0, 0);
    if (!command.ok()) {
      std::cerr << command.status() << std::endl;
      return 1;
    }
    if ((*command)[0] < 0) return g_rank->client->Shutdown(absl::Seconds(30)).ok() ? 0 : 1;
    Tensor input = Filled((*command)[0]);
    for (int64_t i = 0; i < (*command)[1]; ++i) {
      if (!AllReduceOnce(static_cast<Kind>((*command)[2]), input).ok()) return 1;
    }
  }
}

void RunAllReduces(benchmark::State& state, Kind kind) {
  const int64_t bytes = state.range(0);
  if (!ShareCommand(bytes, state.max_iterations, kind).ok()) {
    state.SkipWithError("command broadcast failed");
    return;
  }
  Tensor input = Filled(bytes);
  for (auto _ : state) {
    absl::Status status = AllReduceOnce(kind, input);
    if (!status.ok()) {
      state.SkipWithError(status.ToString().c_str());
      return;
    }
  }
  const double n = g_rank->comm->group_size();
  state.counters["algbw"] =
      benchmark::Counter(static_cast<double>(bytes), benchmark::Counter::kIsIterationInvariantRate,
                         benchmark::Counter::kIs1024);
  state.counters["busbw"] = benchmark::Counter(static_cast<double>(bytes) * 2 * (n - 1) / n,
                                               benchmark::Counter::kIsIterationInvariantRate,
                                               benchmark::Counter::kIs1024);
  state.counters["processes"] = n;
}

void BM_GlooAllReduce(benchmark::State& state) { RunAllReduces(state, kCommunicator); }

// Latency of small all-reduces: through GlooCommunicator, and Gloo's own
// allreduce on the same connections; the difference is tfd's.
void BM_SmallAllReduce_Communicator(benchmark::State& state) {
  RunAllReduces(state, kCommunicator);
}
void BM_SmallAllReduce_RawGloo(benchmark::State& state) { RunAllReduces(state, kRawGloo); }
// Gloo's allgather of one uint64 per rank: every rank sends and receives.
void BM_SmallAllgather_RawGloo(benchmark::State& state) { RunAllReduces(state, kRawAllgather); }

// A fixed number of iterations per size (every rank must agree): about
// 256 MB moved per run, at least 3 and at most 2000 all-reduces. Google
// Benchmark keeps one iteration count per family, so each size is a
// family of its own.
void RegisterSizes(const char* name, void (*fn)(benchmark::State&)) {
  for (int64_t bytes = kMinBytes; bytes <= kMaxBytes; bytes *= 4) {
    const int64_t iterations = std::max<int64_t>(3, std::min<int64_t>(2000, kMaxBytes / bytes));
    benchmark::RegisterBenchmark(name, fn)
        ->Arg(bytes)
        ->Iterations(iterations)
        ->UseRealTime()
        ->Unit(benchmark::kMicrosecond);
  }
}

// A latency benchmark: 300 operations per run of each size in `bytes`.
void RegisterLatency(const char* name, void (*fn)(benchmark::State&),
                     const std::vector<int64_t>& bytes) {
  auto* benchmark = benchmark::RegisterBenchmark(name, fn);
  for (int64_t b : bytes) benchmark->Arg(b);
  benchmark->Iterations(300)->UseRealTime()->Unit(benchmark::kMicrosecond);
}

// A socket listening on a free loopback port (written to `address`), or
// -1 with the benchmark marked failed.
int ListenOnLoopback(benchmark::State& state, sockaddr_in* address) {
  const int listener = socket(AF_INET, SOCK_STREAM, 0);
  address->sin_family = AF_INET;
  address->sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  address->sin_port = 0;
  socklen_t length = sizeof(*address);
  if (bind(listener, reinterpret_cast<sockaddr*>(address), sizeof(*address)) != 0 ||
      listen(listener, 1) != 0 ||
      getsockname(listener, reinterpret_cast<sockaddr*>(address), &length) != 0) {
    close(listener);
    state.SkipWithError("cannot listen on loopback");
    return -1;
  }
  return listener;
}

// One TCP stream over loopback: a thread writes `bytes`, this one reads.
void BM_LoopbackTcpStream(benchmark::State& state) {
  const int64_t bytes = state.range(0);
  sockaddr_in address{};
  const int listener = ListenOnLoopback(state, &address);
  if (listener < 0) return;
  const int64_t iterations = state.max_iterations;
  std::thread writer([&] {
    const int fd = socket(AF_INET, SOCK_STREAM, 0);
    const int one = 1;
    setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof(one));
    if (connect(fd, reinterpret_cast<sockaddr*>(&address), sizeof(address)) != 0) {
      close(fd);
      return;
    }
    std::vector<char> buffer(std::min<int64_t>(bytes, 4 << 20), 1);
    for (int64_t i = 0; i < iterations; ++i) {
      for (int64_t sent = 0; sent < bytes;) {
        const ssize_t n = send(fd, buffer.data(), std::min<int64_t>(buffer.size(), bytes - sent), 0);
        if (n <= 0) break;
        sent += n;
      }
    }
    close(fd);
  });
  const int fd = accept(listener, nullptr, nullptr);
  std::vector<char> buffer(std::min<int64_t>(bytes, 4 << 20));
  for (auto _ : state) {
    for (int64_t received = 0; received < bytes;) {
      const ssize_t n = recv(fd, buffer.data(), std::min<int64_t>(buffer.size(), bytes - received), 0);
      if (n <= 0) break;
      received += n;
    }
  }
  writer.join();
  close(fd);
  close(listener);
  state.counters["bw"] = benchmark::Counter(static_cast<double>(bytes),
                                            benchmark::Counter::kIsIterationInvariantRate,
                                            benchmark::Counter::kIs1024);
}

// Round trips of a `bytes` message between two threads over loopback TCP
// (TCP_NODELAY, as Gloo's sockets): the floor of any exchange between
// processes on this machine, thread wake-ups included.
void BM_LoopbackTcpPingPong(benchmark::State& state) {
  const int64_t bytes = state.range(0);
  sockaddr_in address{};
  const int listener = ListenOnLoopback(state, &address);
  if (listener < 0) return;
  const int one = 1;
  auto exchange = [bytes, one](int fd, bool first) {
    std::vector<char> buffer(bytes, 1);
    auto move = [&](bool out) {
      for (int64_t done = 0; done < bytes;) {
        const ssize_t n = out ? send(fd, buffer.data() + done, bytes - done, 0)
                              : recv(fd, buffer.data() + done, bytes - done, 0);
        if (n <= 0) return false;
        done += n;
      }
      return true;
    };
    setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof(one));
    return first ? move(true) && move(false) : move(false) && move(true);
  };
  const int64_t iterations = state.max_iterations;
  std::thread echo([&] {
    const int fd = socket(AF_INET, SOCK_STREAM, 0);
    if (connect(fd, reinterpret_cast<sockaddr*>(&address), sizeof(address)) == 0) {
      for (int64_t i = 0; i < iterations && exchange(fd, false); ++i) {
      }
    }
    close(fd);
  });
  const int fd = accept(listener, nullptr, nullptr);
  for (auto _ : state) {
    if (!exchange(fd, true)) {
      state.SkipWithError("the echo thread went away");
      break;
    }
  }
  close(fd);
  echo.join();
  close(listener);
}

}  // namespace
}  // namespace distribute
}  // namespace tfd

int main(int argc, char** argv) {
  using namespace tfd;
  using namespace tfd::distribute;
  signal(SIGPIPE, SIG_IGN);
  const int processes = EnvInt("TFD_BENCH_PROCESSES", 2);
  const int index = EnvInt("TFD_BENCH_RANK", 0);
  Rank rank;
  g_rank = &rank;
  std::vector<pid_t> children;
  std::string address;
  if (index == 0) {
    std::vector<std::string> tasks;
    for (int i = 0; i < processes; ++i) tasks.push_back(coordination::TaskName("worker", i));
    auto server = coordination::CoordinationServer::Start("127.0.0.1:0", tasks);
    if (!server.ok()) {
      std::cerr << server.status() << std::endl;
      return 1;
    }
    rank.server = *std::move(server);
    address = absl::StrCat("127.0.0.1:", rank.server->port());
    for (int i = 1; i < processes; ++i) {
      const pid_t pid = fork();
      if (pid == 0) {
        const std::string rank_env = absl::StrCat(i), size_env = absl::StrCat(processes);
        setenv("TFD_BENCH_RANK", rank_env.c_str(), 1);
        setenv("TFD_BENCH_PROCESSES", size_env.c_str(), 1);
        setenv("TFD_BENCH_ADDRESS", address.c_str(), 1);
        execl("/proc/self/exe", argv[0], static_cast<char*>(nullptr));
        _exit(127);
      }
      children.push_back(pid);
    }
  } else {
    const char* env = std::getenv("TFD_BENCH_ADDRESS");
    address = env != nullptr ? env : "";
  }
  absl::Status status = Connect(rank, address, index, processes);
  if (!status.ok()) {
    std::cerr << "rank " << index << ": " << status << std::endl;
    for (pid_t pid : children) kill(pid, SIGKILL);
    return 1;
  }
  if (index != 0) return ServeOtherRank();

  RegisterSizes("BM_GlooAllReduce", BM_GlooAllReduce);
  RegisterSizes("BM_LoopbackTcpStream", BM_LoopbackTcpStream);
  RegisterLatency("BM_SmallAllReduce_Communicator", BM_SmallAllReduce_Communicator, {4, 1024});
  RegisterLatency("BM_SmallAllReduce_RawGloo", BM_SmallAllReduce_RawGloo, {4, 1024});
  RegisterLatency("BM_SmallAllgather_RawGloo", BM_SmallAllgather_RawGloo, {8});
  RegisterLatency("BM_LoopbackTcpPingPong", BM_LoopbackTcpPingPong, {4});
  benchmark::Initialize(&argc, argv);
  benchmark::RunSpecifiedBenchmarks();
  int code = ShareCommand(-1, 0).ok() && rank.client->Shutdown(absl::Seconds(30)).ok() ? 0 : 1;
  for (pid_t pid : children) {
    int child_status = 0;
    waitpid(pid, &child_status, 0);
    if (!WIFEXITED(child_status) || WEXITSTATUS(child_status) != 0) code = 1;
  }
  return code;
}
