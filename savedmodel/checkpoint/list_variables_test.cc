// ListVariables: every key of a checkpoint with dtype and shape, from a
// prefix or from a directory's latest checkpoint.
#include "savedmodel/checkpoint/list_variables.h"

#include "core/nn/layer_names.h"
#include "core/nn/layer_testutil.h"
#include "gtest/gtest.h"
#include "savedmodel/checkpoint/checkpoint.h"
#include "savedmodel/checkpoint/checkpoint_testutil.h"

namespace tfd {
namespace savedmodel {
namespace {

using nn::test::ExpectError;

TEST(ListVariablesTest, EveryKeyWithDtypeAndShape) {
  nn::ClearSession();
  ASSERT_OK_AND_ASSIGN(auto model, test::MakeMlp());
  const std::string dir = test::TempDir("list");
  Checkpoint checkpoint(model, nullptr);
  ASSERT_OK(checkpoint.Save(dir + "/ckpt").status());
  ASSERT_OK_AND_ASSIGN(std::string second, checkpoint.Save(dir + "/ckpt"));

  ASSERT_OK_AND_ASSIGN(std::vector<CheckpointVariable> by_prefix, ListVariables(second));
  ASSERT_OK_AND_ASSIGN(std::vector<CheckpointVariable> by_dir, ListVariables(dir));
  std::vector<std::string> listed;
  for (const auto& v : by_dir) {
    listed.push_back(v.name + " " + DataTypeName(v.dtype) + " " + v.shape.DebugString());
  }
  EXPECT_EQ(listed, (std::vector<std::string>{
                        "_CHECKPOINTABLE_OBJECT_GRAPH string []",
                        "model/layer_with_weights-0/bias/.ATTRIBUTES/VARIABLE_VALUE float32 [16]",
                        "model/layer_with_weights-0/kernel/.ATTRIBUTES/VARIABLE_VALUE float32 [8,16]",
                        "model/layer_with_weights-1/bias/.ATTRIBUTES/VARIABLE_VALUE float32 [4]",
                        "model/layer_with_weights-1/kernel/.ATTRIBUTES/VARIABLE_VALUE float32 [16,4]",
                        "save_counter/.ATTRIBUTES/VARIABLE_VALUE int64 []",
                    }));
  ASSERT_EQ(by_prefix.size(), by_dir.size());
  ExpectError(ListVariables(dir + "/nope").status(), absl::StatusCode::kNotFound, {"nope.index"});
  ExpectError(ListVariables(test::TempDir("empty")).status(), absl::StatusCode::kNotFound,
              {"checkpoint"});
}

}  // namespace
}  // namespace savedmodel
}  // namespace tfd
