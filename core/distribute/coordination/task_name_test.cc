#include "core/distribute/coordination/task_name.h"

#include "gtest/gtest.h"

namespace tfd {
namespace coordination {
namespace {

TEST(TaskNameTest, TensorFlowsSpelling) {
  EXPECT_EQ(TaskName("worker", 3), "/job:worker/replica:0/task:3");
  distribute::ClusterInfo info;
  info.task_type = distribute::TaskType::kChief;
  info.task_index = 0;
  EXPECT_EQ(TaskName(info), "/job:chief/replica:0/task:0");
}

TEST(TaskNameTest, CoordinatedTasksLeaveOutTheEvaluator) {
  distribute::ClusterSpec spec;
  ASSERT_TRUE(spec.AddTask("chief", 0, "a:1").ok());
  ASSERT_TRUE(spec.AddTask("worker", 1, "c:3").ok());
  ASSERT_TRUE(spec.AddTask("worker", 0, "b:2").ok());
  ASSERT_TRUE(spec.AddTask("ps", 0, "d:4").ok());
  ASSERT_TRUE(spec.AddTask("evaluator", 0, "e:5").ok());
  EXPECT_EQ(CoordinatedTasks(spec),
            (std::vector<std::string>{"/job:chief/replica:0/task:0", "/job:ps/replica:0/task:0",
                                      "/job:worker/replica:0/task:0",
                                      "/job:worker/replica:0/task:1"}));
}

}  // namespace
}  // namespace coordination
}  // namespace tfd
