#include "core/device/cpu/thread_pool.h"

#include <omp.h>
#include <pthread.h>
#include <sched.h>

#include <algorithm>

#include "core/device/cpu/openmp_spin.h"
#include "core/framework/device_access.h"

namespace tfd {
namespace {

void PinCurrentThread(const std::vector<int>& cpus) {
  if (cpus.empty()) return;
  cpu_set_t set;
  CPU_ZERO(&set);
  for (int c : cpus) CPU_SET(c, &set);
  // Best effort: a container may forbid it, and the pool still works.
  pthread_setaffinity_np(pthread_self(), sizeof(set), &set);
}

}  // namespace

ThreadPool::ThreadPool(int num_threads, std::vector<int> cpus)
    : num_threads_(std::max(1, num_threads)), cpus_(std::move(cpus)) {
  BoundOpenMpSpinWait();
}

ThreadPool::~ThreadPool() {
  std::vector<std::thread> workers;
  {
    absl::MutexLock lock(&mu_);
    stopping_ = true;
    workers.swap(workers_);
  }
  for (std::thread& t : workers) t.join();
}

void ThreadPool::WorkerLoop() {
  while (true) {
    std::function<void()> task;
    {
      absl::MutexLock lock(&mu_);
      mu_.Await(absl::Condition(
          +[](ThreadPool* p) ABSL_EXCLUSIVE_LOCKS_REQUIRED(p->mu_) {
            return p->stopping_ || !p->queue_.empty();
          },
          this));
      if (queue_.empty()) return;  // stopping_ and drained.
      task = std::move(queue_.front());
      queue_.pop_front();
    }
    task();
  }
}

void ThreadPool::Schedule(std::function<void()> fn) {
  if (num_threads_ == 1) {
    fn();
    return;
  }
  absl::MutexLock lock(&mu_);
  // The calling thread counts as one of num_threads_, as for ParallelFor.
  for (int i = static_cast<int>(workers_.size()) + 1; i < num_threads_; ++i) {
    workers_.emplace_back([this] {
      PinCurrentThread(cpus_);
      WorkerLoop();
    });
  }
  queue_.push_back(std::move(fn));
}

void ThreadPool::ParallelFor(int64_t n, int64_t cost_per_unit,
                             const std::function<void(int64_t, int64_t)>& fn) {
  if (n <= 0) return;
  // Inside another ParallelFor's fn (or any parallel region) the team's
  // threads are all busy already: a nested team would oversubscribe them.
  const int threads = omp_in_parallel() ? 1 : num_threads_;
  const ShardPlan plan = PlanShards(n, cost_per_unit, threads);
  if (plan.num_shards <= 1) {
    fn(0, n);
    return;
  }
  // The calling thread's team; see Note [Thread budget].
  const int64_t shards = plan.num_shards;
  const int64_t block = plan.block;
  // A kernel's shards may read what the kernel may (Note [Device reads]).
  [[maybe_unused]] const Device* const access = DeviceAccessScope::Current();
#pragma omp parallel for num_threads(static_cast<int>(shards)) schedule(static, 1)
  for (int64_t s = 0; s < shards; ++s) {
    TFD_DEVICE_ACCESS_SCOPE(access);
    fn(s * block, std::min(n, (s + 1) * block));
  }
}

}  // namespace tfd
