#include "savedmodel/export/save_model.h"

#include <sys/stat.h>

#include <cstdlib>

#include "core/framework/execute.h"
#include "core/framework/status.h"
#include "core/framework/tensor_testutil.h"
#include "core/io/file.h"
#include "core/nn/dense.h"
#include "core/nn/dtype_policy.h"
#include "core/nn/sequential.h"
#include "gtest/gtest.h"
#include "savedmodel/bundle/tensor_bundle.h"
#include "savedmodel/export/fashion_cnn_testutil.h"
#include "savedmodel/export/saved_model_writer.h"

namespace tfd {
namespace savedmodel {
namespace {

std::string TempDir(const std::string& name) {
  const char* tmp = std::getenv("TEST_TMPDIR");
  return std::string(tmp != nullptr ? tmp : "/tmp") + "/" + name;
}

tensorflow::SavedModel ReadSavedModel(const std::string& dir) {
  tensorflow::SavedModel proto;
  auto bytes = io::ReadFileToString(dir + "/saved_model.pb");
  EXPECT_TRUE(bytes.ok()) << bytes.status();
  EXPECT_TRUE(bytes.ok() && proto.ParseFromString(*bytes));
  return proto;
}

const tensorflow::NodeDef* FindNode(const tensorflow::GraphDef& g, const std::string& name) {
  for (const auto& n : g.node()) {
    if (n.name() == name) return &n;
  }
  return nullptr;
}

TEST(SaveModelTest, CnnSavedModelHasTensorFlowsLayout) {
  auto model = MakeFashionCnn(7);
  ASSERT_TRUE(model.ok()) << model.status();
  const std::string dir = TempDir("cnn_layout");
  ASSERT_TRUE(SaveModel(**model, dir).ok());

  tensorflow::SavedModel sm = ReadSavedModel(dir);
  EXPECT_EQ(sm.saved_model_schema_version(), 1);
  ASSERT_EQ(sm.meta_graphs_size(), 1);
  const tensorflow::MetaGraphDef& meta = sm.meta_graphs(0);
  ASSERT_EQ(meta.meta_info_def().tags_size(), 1);
  EXPECT_EQ(meta.meta_info_def().tags(0), "serve");
  EXPECT_FALSE(meta.has_object_graph_def());
  EXPECT_EQ(meta.graph_def().versions().producer(), 1394);

  ASSERT_EQ(meta.signature_def().count("serving_default"), 1u);
  const tensorflow::SignatureDef& sig = meta.signature_def().at("serving_default");
  EXPECT_EQ(sig.method_name(), "tensorflow/serving/predict");
  ASSERT_EQ(sig.inputs().count("input_1"), 1u) << sig.DebugString();
  const tensorflow::TensorInfo& in = sig.inputs().at("input_1");
  EXPECT_EQ(in.name(), "serving_default_input_1:0");
  EXPECT_EQ(in.dtype(), tensorflow::DT_FLOAT);
  ASSERT_EQ(in.tensor_shape().dim_size(), 4);
  EXPECT_EQ(in.tensor_shape().dim(0).size(), -1);
  ASSERT_EQ(sig.outputs().count("dense_1"), 1u);
  EXPECT_EQ(sig.outputs().at("dense_1").tensor_shape().dim(1).size(), 10);
  EXPECT_NE(FindNode(meta.graph_def(), "dense_1"), nullptr);

  const tensorflow::SaverDef& saver = meta.saver_def();
  EXPECT_EQ(saver.filename_tensor_name(), "save/Const:0");
  EXPECT_EQ(saver.save_tensor_name(), "save/control_dependency:0");
  EXPECT_EQ(saver.restore_op_name(), "save/restore_all");
  EXPECT_EQ(saver.version(), tensorflow::SaverDef::V2);
  const tensorflow::NodeDef* restore_all = FindNode(meta.graph_def(), "save/restore_all");
  ASSERT_NE(restore_all, nullptr);
  EXPECT_EQ(restore_all->input_size(), 8);  // One assignment per weight.
  const tensorflow::NodeDef* kernel = FindNode(meta.graph_def(), "conv2d/kernel");
  ASSERT_NE(kernel, nullptr);
  EXPECT_EQ(kernel->op(), "VarHandleOp");
  EXPECT_EQ(kernel->attr().at("shared_name").s(), "conv2d/kernel");

  // The variables, under their names, with the model's values.
  auto reader = BundleReader::Open(dir + "/variables/variables");
  ASSERT_TRUE(reader.ok()) << reader.status();
  EXPECT_EQ((*reader)->Keys().size(), 8u);
  for (const auto& w : (*model)->weights()) {
    auto stored = (*reader)->Lookup(w->name());
    ASSERT_TRUE(stored.ok()) << w->name() << ": " << stored.status();
    test::ExpectTensorEqual(*stored, w->component(0).Peek());
  }
  // Nothing but the export directory is left behind.
  struct stat st;
  EXPECT_NE(stat((dir + ".tmp-" + std::to_string(getpid())).c_str(), &st), 0);
}

TEST(SaveModelTest, RefusesNonEmptyDirectoryAndAcceptsEmptyOne) {
  auto model = MakeFashionCnn(1);
  ASSERT_TRUE(model.ok());
  const std::string dir = TempDir("occupied");
  ASSERT_TRUE(io::CreateDirs(dir).ok());
  ASSERT_TRUE(io::WriteStringToFileAtomically(dir + "/keep.txt", "mine").ok());
  absl::Status s = SaveModel(**model, dir);
  EXPECT_EQ(s.code(), absl::StatusCode::kAlreadyExists) << s;
  EXPECT_EQ(*io::ReadFileToString(dir + "/keep.txt"), "mine");

  const std::string empty = TempDir("empty_dir/");
  ASSERT_TRUE(io::CreateDirs(empty).ok());
  EXPECT_TRUE(SaveModel(**model, empty).ok());
  EXPECT_TRUE(io::FileExists(TempDir("empty_dir") + "/saved_model.pb"));
}

TEST(SaveModelTest, InputShapeFromOptionsWhenTheModelHasNone) {
  auto model = nn::Sequential::Make({std::make_shared<nn::Dense>(3)});
  ASSERT_TRUE(model.ok());
  absl::Status s = SaveModel(**model, TempDir("no_shape"));
  EXPECT_EQ(s.code(), absl::StatusCode::kFailedPrecondition) << s;
  EXPECT_FALSE(io::FileExists(TempDir("no_shape") + "/saved_model.pb"));

  SaveOptions options;
  options.input_shape = nn::Shape{nn::kNone, 5};
  options.input_keys = {"features"};
  options.output_key = "scores";
  ASSERT_TRUE(SaveModel(**model, TempDir("with_shape"), options).ok());
  tensorflow::SavedModel sm = ReadSavedModel(TempDir("with_shape"));
  const auto& sig = sm.meta_graphs(0).signature_def().at("serving_default");
  EXPECT_EQ(sig.inputs().at("features").tensor_shape().dim(1).size(), 5);
  EXPECT_EQ(sig.outputs().count("scores"), 1u);

  options.input_keys = {"a", "b"};
  EXPECT_FALSE(SaveModel(**model, TempDir("bad_keys"), options).ok());
}

// As tf-keras exports a model made under a mixed policy: float32 inputs
// (the policy's variable dtype, also when the shape comes from the
// options), the output in the last layer's compute dtype, float32
// variables read through casts to the compute dtype.
TEST(SaveModelTest, MixedPolicyModelsTakeFloat32AndKeepFloat32Variables) {
  for (const char* name : {"mixed_float16", "mixed_bfloat16"}) {
    SCOPED_TRACE(name);
    auto policy = nn::DTypePolicy::FromName(name);
    ASSERT_TRUE(policy.ok()) << policy.status();
    absl::StatusOr<std::shared_ptr<nn::Sequential>> model;
    {
      nn::ScopedGlobalPolicy scope(*policy);
      model = nn::Sequential::Make({std::make_shared<nn::Dense>(3)});
    }
    ASSERT_TRUE(model.ok()) << model.status();
    SaveOptions options;
    options.input_shape = nn::Shape{nn::kNone, 5};
    const std::string dir = TempDir(std::string("mixed_") + name);
    ASSERT_TRUE(SaveModel(**model, dir, options).ok());

    const tensorflow::SavedModel sm = ReadSavedModel(dir);
    ASSERT_EQ(sm.meta_graphs_size(), 1);
    const tensorflow::MetaGraphDef& meta = sm.meta_graphs(0);
    const auto& sig = meta.signature_def().at("serving_default");
    ASSERT_EQ(sig.inputs().size(), 1);
    EXPECT_EQ(sig.inputs().begin()->second.dtype(), tensorflow::DT_FLOAT);
    ASSERT_EQ(sig.outputs().size(), 1);
    const DataType compute = policy->compute_dtype();
    EXPECT_EQ(static_cast<int>(sig.outputs().begin()->second.dtype()), static_cast<int>(compute));
    int handles = 0, casts_to_compute = 0;
    for (const auto& n : meta.graph_def().node()) {
      if (n.op() == "VarHandleOp") {
        ++handles;
        EXPECT_EQ(n.attr().at("dtype").type(), tensorflow::DT_FLOAT) << n.name();
      }
      if (n.op() == "Cast" && n.attr().at("SrcT").type() == tensorflow::DT_FLOAT &&
          static_cast<int>(n.attr().at("DstT").type()) == static_cast<int>(compute)) {
        ++casts_to_compute;
      }
    }
    EXPECT_EQ(handles, 2);  // kernel and bias.
    // The input, the kernel and the bias.
    EXPECT_GE(casts_to_compute, 3);
  }
}

TEST(SaveModelTest, DuplicateVariableNamesAreRefused) {
  Variable a("same", test::RandomUniformTensor(DT_FLOAT, {2}, 1));
  Variable b("same", test::RandomUniformTensor(DT_FLOAT, {2}, 2));
  auto fn = [&](const std::vector<Tensor>& x) -> absl::StatusOr<std::vector<Tensor>> {
    TFD_ASSIGN_OR_RETURN(Tensor y, Execute1("AddV2", {x[0], a.Read()}));
    TFD_ASSIGN_OR_RETURN(y, Execute1("AddV2", {y, b.Read()}));
    return std::vector<Tensor>{y};
  };
  ExportSpec spec;
  auto traced = graph::TraceFunction(fn, {{"x", DT_FLOAT, {2}}});
  ASSERT_TRUE(traced.ok()) << traced.status();
  spec.traced = *std::move(traced);
  spec.input_keys = {"x"};
  spec.outputs = {{"y", {2}}};
  absl::Status s = WriteSavedModel(std::move(spec), TempDir("dup"));
  EXPECT_EQ(s.code(), absl::StatusCode::kInvalidArgument);
  EXPECT_NE(s.message().find("'same'"), std::string::npos) << s;
}

}  // namespace
}  // namespace savedmodel
}  // namespace tfd
