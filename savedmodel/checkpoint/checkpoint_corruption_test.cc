// Damaged checkpoints: truncated, bit-flipped or missing .index/.data
// files and wrong object graphs give clear errors naming the file or key,
// never a crash, and leave the model as it was.
#include <filesystem>
#include <fstream>

#include "core/io/file.h"
#include "core/nn/layer_names.h"
#include "core/nn/layer_testutil.h"
#include "gtest/gtest.h"
#include "savedmodel/bundle/tensor_bundle.h"
#include "savedmodel/checkpoint/checkpoint.h"
#include "savedmodel/checkpoint/checkpoint_testutil.h"
#include "savedmodel/checkpoint/list_variables.h"

namespace tfd {
namespace savedmodel {
namespace {

using nn::test::ExpectError;
using nn::test::Values;

class CheckpointCorruptionTest : public ::testing::Test {
 protected:
  void SetUp() override {
    nn::ClearSession();
    model_ = test::MakeMlp().value();
    const std::string dir = test::TempDir(
        ::testing::UnitTest::GetInstance()->current_test_info()->name());
    prefix_ = Checkpoint(model_, nullptr).Save(dir + "/ckpt").value();
    before_ = Values(model_->weights()[0]->component(0).Peek());
    // Restoring into the same model must leave it unchanged on failure:
    // scribble on it first so a partial restore would show.
    nn::test::AssignWeight(model_->weights()[0], std::vector<double>(before_.size(), 7.0));
    before_ = Values(model_->weights()[0]->component(0).Peek());
  }
  std::string Data() const { return DataFilename(prefix_, 0, 1); }
  std::string Index() const { return MetaFilename(prefix_); }
  absl::Status Restore() { return Checkpoint(model_, nullptr).Restore(prefix_); }
  void ExpectUnchanged() { EXPECT_EQ(Values(model_->weights()[0]->component(0).Peek()), before_); }

  static void Truncate(const std::string& path, uint64_t size) {
    std::filesystem::resize_file(path, size);
  }
  static void FlipBit(const std::string& path, uint64_t offset) {
    std::fstream f(path, std::ios::in | std::ios::out | std::ios::binary);
    f.seekg(offset);
    char c;
    f.get(c);
    f.seekp(offset);
    f.put(static_cast<char>(c ^ 0x10));
  }
  // Rewrites the bundle with `graph` as its object graph (or none).
  void RewriteObjectGraph(const std::optional<std::string>& graph) {
    auto reader = BundleReader::Open(prefix_).value();
    std::vector<std::pair<std::string, Tensor>> entries;
    for (const std::string& key : reader->Keys()) {
      if (key != kObjectGraphKey) entries.emplace_back(key, reader->Lookup(key).value());
    }
    reader.reset();
    auto writer = BundleWriter::Create(prefix_).value();
    for (const auto& [key, value] : entries) ASSERT_OK(writer->Add(key, value));
    if (graph.has_value()) {
      Tensor proto(DT_STRING, TensorShape());
      proto.data<std::string>()[0] = *graph;
      ASSERT_OK(writer->Add(kObjectGraphKey, proto));
    }
    ASSERT_OK(writer->Finish());
  }
  tensorflow::TrackableObjectGraph SavedGraph() {
    tensorflow::TrackableObjectGraph graph;
    auto proto = BundleReader::Open(prefix_).value()->Lookup(kObjectGraphKey).value();
    EXPECT_TRUE(graph.ParseFromString(proto.data<std::string>()[0]));
    return graph;
  }

  std::shared_ptr<nn::Model> model_;
  std::string prefix_;
  std::vector<double> before_;
};

TEST_F(CheckpointCorruptionTest, TruncatedData) {
  // The object graph is written last: its bytes are cut short.
  Truncate(Data(), io::GetFileSize(Data()).value() - 3);
  ExpectError(Restore(), absl::StatusCode::kDataLoss, {kObjectGraphKey, Data()});
  ExpectUnchanged();
}

TEST_F(CheckpointCorruptionTest, BitFlippedData) {
  FlipBit(Data(), 10);
  ExpectError(Restore(), absl::StatusCode::kDataLoss, {".ATTRIBUTES/VARIABLE_VALUE"});
  ExpectUnchanged();
}

TEST_F(CheckpointCorruptionTest, TruncatedIndex) {
  Truncate(Index(), io::GetFileSize(Index()).value() / 2);
  ExpectError(Restore(), absl::StatusCode::kDataLoss, {Index()});
  ExpectError(ListVariables(prefix_).status(), absl::StatusCode::kDataLoss, {Index()});
  ExpectUnchanged();
}

TEST_F(CheckpointCorruptionTest, BitFlippedIndex) {
  FlipBit(Index(), 20);
  ExpectError(Restore(), absl::StatusCode::kDataLoss, {Index()});
  ExpectUnchanged();
}

TEST_F(CheckpointCorruptionTest, MissingFiles) {
  ASSERT_OK(io::DeleteFile(Data()));
  ExpectError(Restore(), absl::StatusCode::kNotFound, {"data-00000-of-00001"});
  ExpectUnchanged();
  ASSERT_OK(io::DeleteFile(Index()));
  ExpectError(Restore(), absl::StatusCode::kNotFound, {Index()});
  ExpectError(ListVariables(prefix_).status(), absl::StatusCode::kNotFound, {Index()});
}

TEST_F(CheckpointCorruptionTest, ObjectGraphThatDoesNotParse) {
  RewriteObjectGraph(std::string("\xff\xff\xff garbage", 12));
  ExpectError(Restore(), absl::StatusCode::kDataLoss, {kObjectGraphKey});
  ExpectUnchanged();
}

TEST_F(CheckpointCorruptionTest, NoObjectGraph) {
  RewriteObjectGraph(std::nullopt);
  ExpectError(Restore(), absl::StatusCode::kUnimplemented, {kObjectGraphKey, "name-based"});
}

TEST_F(CheckpointCorruptionTest, ObjectGraphWithChildOutOfRange) {
  tensorflow::TrackableObjectGraph graph = SavedGraph();
  graph.mutable_nodes(0)->mutable_children(0)->set_node_id(9999);
  RewriteObjectGraph(graph.SerializeAsString());
  ExpectError(Restore(), absl::StatusCode::kDataLoss, {"model", "9999"});
  ExpectUnchanged();
}

TEST_F(CheckpointCorruptionTest, ObjectGraphNamingAMissingKey) {
  tensorflow::TrackableObjectGraph graph = SavedGraph();
  for (auto& node : *graph.mutable_nodes()) {
    for (auto& attribute : *node.mutable_attributes()) {
      if (attribute.full_name() == "dense_1/bias") attribute.set_checkpoint_key("no/such/key");
    }
  }
  RewriteObjectGraph(graph.SerializeAsString());
  ExpectError(Restore(), absl::StatusCode::kDataLoss, {"no/such/key"});
  ExpectUnchanged();
}

TEST_F(CheckpointCorruptionTest, ObjectGraphOfAnotherModel) {
  // Both edges to the second Dense renamed: it is not in this graph (one
  // edge left would still match it, as in TensorFlow).
  tensorflow::TrackableObjectGraph graph = SavedGraph();
  for (auto& node : *graph.mutable_nodes()) {
    for (auto& child : *node.mutable_children()) {
      if (child.local_name() == "layer_with_weights-1") child.set_local_name("layer_with_weights-7");
      if (child.local_name() == "layer-1") child.set_local_name("layer-7");
    }
  }
  RewriteObjectGraph(graph.SerializeAsString());
  ExpectError(Restore(), absl::StatusCode::kNotFound,
              {"model/layer_with_weights-1/kernel/.ATTRIBUTES/VARIABLE_VALUE"});
  ExpectUnchanged();
  // An empty graph has no root.
  RewriteObjectGraph(std::string());
  ExpectError(Restore(), absl::StatusCode::kDataLoss, {"no nodes"});
}

}  // namespace
}  // namespace savedmodel
}  // namespace tfd
