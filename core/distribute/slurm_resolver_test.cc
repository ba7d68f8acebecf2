// Tests for SLURM hostlist expansion and the SLURM resolver: TensorFlow's
// examples and layout (sorted nodes, port_base + local task, jobs in name
// order), GPUs, overrides and errors. The environment is always a map.
#include "core/distribute/slurm_resolver.h"

#include <random>

#include "gtest/gtest.h"

namespace tfd {
namespace distribute {
namespace {

using Strings = std::vector<std::string>;

std::map<std::string, std::string> Step(const std::string& procid, const std::string& nodes,
                                        const std::string& per_node) {
  return {{"SLURM_PROCID", procid},
          {"SLURM_STEP_NODELIST", nodes},
          {"SLURM_STEP_TASKS_PER_NODE", per_node}};
}

absl::StatusOr<ClusterInfo> Resolve(std::map<std::string, std::string> env,
                                    SlurmOptions options = {}) {
  return SlurmClusterResolver(std::move(options), EnvFromMap(std::move(env))).Resolve();
}

TEST(HostlistTest, ExpandsLikeTensorFlow) {
  EXPECT_EQ(*ExpandHostlist("n[1-2],m5,o[3-4,6,7-9]"),
            Strings({"n1", "n2", "m5", "o3", "o4", "o6", "o7", "o8", "o9"}));
  EXPECT_EQ(*ExpandHostlist("node[1-3,5],other"),
            Strings({"node1", "node2", "node3", "node5", "other"}));
  EXPECT_EQ(*ExpandHostlist("n[08-10]"), Strings({"n08", "n09", "n10"}));
  EXPECT_EQ(*ExpandHostlist("n[1-2]-ib,x"), Strings({"n1-ib", "n2-ib", "x"}));
  EXPECT_EQ(*ExpandHostlist("single"), Strings({"single"}));
  EXPECT_EQ(*ExpandHostlist("b,a,b"), Strings({"b", "a", "b"}));  // No dedup, order kept.
  for (const char* bad : {"", "a,,b", "a,", "n[1-", "n[[1]]", "n]1[", "n[3-1]", "n[a-b]",
                          "n[1-2][3]", "n[]", "n[1-2-3]", "n[0-99999999]"}) {
    absl::Status s = ExpandHostlist(bad).status();
    EXPECT_EQ(s.code(), absl::StatusCode::kInvalidArgument) << bad;
    EXPECT_NE(s.message().find("invalid hostlist"), std::string::npos) << s;
  }
}

TEST(HostlistTest, RandomTextEndsInHostsOrAnError) {
  const std::string alphabet = "n[]-,0123456789x";
  std::mt19937 rng(23);
  for (int trial = 0; trial < 5000; ++trial) {
    std::string text(rng() % 12, ' ');
    for (char& c : text) c = alphabet[rng() % alphabet.size()];
    absl::StatusOr<std::vector<std::string>> hosts = ExpandHostlist(text);
    if (hosts.ok()) {
      EXPECT_FALSE(hosts->empty()) << text;
      for (const std::string& h : *hosts) {
        EXPECT_FALSE(h.empty()) << text;
      }
    } else {
      EXPECT_EQ(hosts.status().code(), absl::StatusCode::kInvalidArgument) << text;
    }
    absl::StatusOr<std::vector<int>> counts = ExpandTasksPerNode(text);
    if (!counts.ok()) {
      EXPECT_EQ(counts.status().code(), absl::StatusCode::kInvalidArgument);
    }
  }
}

TEST(HostlistTest, ExpandsTasksPerNode) {
  EXPECT_EQ(*ExpandTasksPerNode("3(x2),2,1"), std::vector<int>({3, 3, 2, 1}));
  EXPECT_EQ(*ExpandTasksPerNode("4"), std::vector<int>({4}));
  for (const char* bad : {"", "x", "2(x)", "2(3)", "2(x3", "-1", "2,,1"}) {
    EXPECT_EQ(ExpandTasksPerNode(bad).status().code(), absl::StatusCode::kInvalidArgument) << bad;
  }
}

TEST(SlurmResolverTest, LaysTasksOutNodeByNode) {
  absl::StatusOr<ClusterInfo> info = Resolve(Step("3", "n[1-2]", "2(x2)"));
  ASSERT_TRUE(info.ok()) << info.status();
  EXPECT_EQ(info->task_type, TaskType::kWorker);
  EXPECT_EQ(info->task_index, 3);
  EXPECT_EQ(info->rank, 3);
  EXPECT_EQ(info->num_workers, 4);
  EXPECT_FALSE(info->is_chief);
  EXPECT_EQ(info->worker_addresses, Strings({"n1:8888", "n1:8889", "n2:8888", "n2:8889"}));
  EXPECT_EQ(info->MasterAddress(), "grpc://n2:8889");
  EXPECT_EQ(info->coordinator_address, "n1:8888");
  EXPECT_EQ(info->local_devices.num_gpus, 0);
}

TEST(SlurmResolverTest, SortsNodesAndJobsByName) {
  // Nodes b (1 task) and a (2 tasks) are laid out as a, a, b; the jobs
  // {"worker": 2, "chief": 1} are dealt chief first.
  SlurmOptions options;
  options.jobs = {{"worker", 2}, {"chief", 1}};
  auto env = Step("2", "b,a", "1,2");
  absl::StatusOr<ClusterInfo> info = Resolve(env, options);
  ASSERT_TRUE(info.ok()) << info.status();
  EXPECT_EQ(*info->cluster_spec.TaskAddress("chief", 0), "a:8888");
  EXPECT_EQ(info->cluster_spec.JobAddresses("worker"), Strings({"a:8889", "b:8888"}));
  EXPECT_EQ(info->task_type, TaskType::kWorker);
  EXPECT_EQ(info->task_index, 1);
  EXPECT_EQ(info->rank, 2);
  env["SLURM_PROCID"] = "0";
  absl::StatusOr<ClusterInfo> chief = Resolve(env, options);
  ASSERT_TRUE(chief.ok());
  EXPECT_EQ(chief->task_type, TaskType::kChief);
  EXPECT_TRUE(chief->is_chief);

  SlurmOptions with_ps;
  with_ps.jobs = {{"worker", 2}, {"ps", 1}};
  env["SLURM_PROCID"] = "0";
  absl::StatusOr<ClusterInfo> ps = Resolve(env, with_ps);
  ASSERT_TRUE(ps.ok()) << ps.status();
  EXPECT_EQ(ps->task_type, TaskType::kPs);
  EXPECT_EQ(ps->rank, -1);
}

TEST(SlurmResolverTest, AllocatesGpusPerTask) {
  auto env = Step("1", "n1", "2");
  env["CUDA_VISIBLE_DEVICES"] = "0,1,2,3";
  absl::StatusOr<ClusterInfo> info = Resolve(env);
  ASSERT_TRUE(info.ok()) << info.status();
  EXPECT_EQ(info->local_devices.num_gpus, 2);
  EXPECT_EQ(info->local_devices.gpu_ids, std::vector<int>({2, 3}));
  SlurmOptions one_each;
  one_each.gpus_per_node = 8;
  one_each.gpus_per_task = 1;
  EXPECT_EQ(Resolve(env, one_each)->local_devices.gpu_ids, std::vector<int>({1}));
  SlurmOptions too_many;
  too_many.gpus_per_task = 3;
  absl::Status s = Resolve(env, too_many).status();
  EXPECT_EQ(s.code(), absl::StatusCode::kInvalidArgument);
  EXPECT_NE(s.message().find("need 6 GPUs, but the node has 4"), std::string::npos) << s;
}

TEST(SlurmResolverTest, OptionsReplaceTheEnvironment) {
  SlurmOptions per_node;
  per_node.tasks_per_node = 2;
  per_node.port_base = 9000;
  absl::StatusOr<ClusterInfo> info =
      Resolve({{"SLURM_PROCID", "2"}, {"SLURM_STEP_NODELIST", "x[1-2]"}}, per_node);
  ASSERT_TRUE(info.ok()) << info.status();
  EXPECT_EQ(info->MasterAddress(), "grpc://x2:9000");
  SlurmOptions per_host;
  per_host.tasks_per_host = {{"h2", 1}, {"h1", 1}};
  per_host.rpc_layer = "";
  info = Resolve({{"SLURM_PROCID", "1"}}, per_host);
  ASSERT_TRUE(info.ok()) << info.status();
  EXPECT_EQ(info->MasterAddress(), "h2:8888");
  // The step's task count, when given, must agree with the layout.
  EXPECT_EQ(Resolve({{"SLURM_PROCID", "1"}, {"SLURM_NTASKS", "3"}}, per_host).status().code(),
            absl::StatusCode::kInvalidArgument);
  EXPECT_TRUE(Resolve({{"SLURM_PROCID", "1"}, {"SLURM_STEP_NUM_TASKS", "2"}}, per_host).ok());
}

TEST(SlurmResolverTest, ChecksSlurmsOwnPlacement) {
  auto env = Step("1", "n[1-2]", "2(x2)");
  env["SLURM_LOCALID"] = "1";
  env["SLURMD_NODENAME"] = "n1";
  EXPECT_TRUE(Resolve(env).ok());
  env["SLURM_LOCALID"] = "0";  // A cyclic distribution would do this.
  absl::Status local = Resolve(env).status();
  EXPECT_EQ(local.code(), absl::StatusCode::kFailedPrecondition);
  EXPECT_NE(local.message().find("n1:8889"), std::string::npos) << local;
  // "node10" sorts before "node9": rank 0 is on node9 but maps to node10.
  auto unsorted = Step("0", "node[9-10]", "1(x2)");
  unsorted["SLURMD_NODENAME"] = "node9";
  EXPECT_EQ(Resolve(unsorted).status().code(), absl::StatusCode::kFailedPrecondition);
}

TEST(SlurmResolverTest, Errors) {
  absl::Status missing = Resolve({}).status();
  EXPECT_EQ(missing.code(), absl::StatusCode::kNotFound);
  EXPECT_NE(missing.message().find("SLURM_PROCID is not set"), std::string::npos) << missing;
  EXPECT_EQ(Resolve({{"SLURM_PROCID", "0"}}).status().code(), absl::StatusCode::kNotFound);
  EXPECT_EQ(Resolve(Step("x", "n1", "1")).status().code(), absl::StatusCode::kInvalidArgument);
  absl::Status range = Resolve(Step("4", "n[1-2]", "2(x2)")).status();
  EXPECT_NE(range.message().find("SLURM_PROCID 4 is out of range for 4 tasks"), std::string::npos)
      << range;
  absl::Status lists = Resolve(Step("0", "n[1-2]", "2(x3)")).status();
  EXPECT_NE(lists.message().find("covers 3 nodes"), std::string::npos) << lists;
  absl::Status twice = Resolve(Step("0", "n1,n1", "1,1")).status();
  EXPECT_NE(twice.message().find("names node \"n1\" twice"), std::string::npos) << twice;
  absl::Status hostlist = Resolve(Step("0", "n[1-", "1")).status();
  EXPECT_NE(hostlist.message().find("SLURM_STEP_NODELIST: invalid hostlist"), std::string::npos)
      << hostlist;
  SlurmOptions jobs;
  jobs.jobs = {{"worker", 3}};
  absl::Status sum = Resolve(Step("0", "n[1-2]", "2(x2)"), jobs).status();
  EXPECT_NE(sum.message().find("the jobs ask for 3 tasks but the step has 4"), std::string::npos)
      << sum;
  jobs.jobs = {{"master", 4}};
  absl::Status name = Resolve(Step("0", "n[1-2]", "2(x2)"), jobs).status();
  EXPECT_EQ(name.code(), absl::StatusCode::kInvalidArgument);
  EXPECT_NE(name.message().find("\"master\""), std::string::npos) << name;
  SlurmOptions ports;
  ports.port_base = 65535;
  EXPECT_EQ(Resolve(Step("0", "n1", "2"), ports).status().code(),
            absl::StatusCode::kInvalidArgument);
}

}  // namespace
}  // namespace distribute
}  // namespace tfd
