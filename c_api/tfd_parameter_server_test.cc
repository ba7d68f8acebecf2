// ParameterServerStrategy through the C API with every task of the job in
// this process (over real gRPC on localhost), each told its place by the
// "tf_config" option: one ps task (TFD_StartParameterServer), two workers
// serving the model's steps (TFD_ModelServeTrainSteps, or
// ...FromFunction), and the chief training them with
// TFD_ModelFitWithOptions or a custom loop through a TFD_Coordinator;
// then the roles' errors. (A job of real processes is
// tests/parameter_server:capi_ps_job_test.)
#include <algorithm>
#include <atomic>
#include <cmath>
#include <cstdlib>
#include <string>
#include <utility>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/synchronization/mutex.h"
#include "c_api/c_api_testutil.h"
#include "core/distribute/testing/free_port.h"
#include "gtest/gtest.h"
#include "tfd/c_api.h"

namespace tfd {
namespace capi {
namespace {

using testing::MakeBatch;
using testing::Status;

TFD_Options* TaskOptions(const std::string& tf_config, Status& s) {
  TFD_Options* o = TFD_NewOptions();
  TFD_OptionsSetString(o, "tf_config", tf_config.c_str(), s);
  return o;
}

// The same model in every task; its layers are named so that the tasks of
// this one process agree on the variables' names.
TFD_Model* NamedMlp(TFD_Strategy* strategy, Status& s) {
  TFD_Model* m = TFD_NewSequential(strategy, "mlp", s);
  const int64_t features = 4;
  TFD_AddInput(m, &features, 1, TF_FLOAT, s);
  TFD_Options* hidden = TFD_NewOptions();
  TFD_OptionsSetString(hidden, "name", "hidden", s);
  TFD_AddDense(m, 16, "relu", hidden, s);
  TFD_Options* logits = TFD_NewOptions();
  TFD_OptionsSetString(logits, "name", "logits", s);
  TFD_AddDense(m, 3, nullptr, logits, s);
  TFD_Options* sgd = TFD_NewOptions();
  TFD_OptionsSetDouble(sgd, "learning_rate", 0.1, s);
  TFD_Options* loss = TFD_NewOptions();
  TFD_OptionsSetBool(loss, "from_logits", 1, s);
  const char* metrics[] = {"accuracy"};
  TFD_ModelCompile(m, "sgd", sgd, "sparse_categorical_crossentropy", loss, metrics, 1, s);
  for (TFD_Options* o : {hidden, logits, sgd, loss}) TFD_DeleteOptions(o);
  return m;
}

// `rows` toy rows (seed `seed`), one element per row.
TFD_Dataset* Rows(int rows, int seed, Status& s) {
  TF_Tensor *x, *y;
  MakeBatch(rows, seed, &x, &y);
  TF_Tensor* parts[2] = {x, y};
  TFD_Dataset* dataset = TFD_NewDatasetFromTensors(parts, 2, s);
  TF_DeleteTensor(x);
  TF_DeleteTensor(y);
  return dataset;
}

// `rows` batched by `batch`, for ever; takes `rows`.
TFD_Dataset* RepeatedBatches(TFD_Dataset* rows, int64_t batch, Status& s) {
  TFD_Dataset* repeated = TFD_DatasetRepeat(rows, -1, s);
  TFD_Dataset* batches = TFD_DatasetBatch(repeated, batch, 1, s);
  TFD_DeleteDataset(rows);
  TFD_DeleteDataset(repeated);
  return batches;
}

// A worker's batches: 256 toy rows (seed `seed`) in batches of 16.
TFD_Dataset* WorkerData(int seed, Status& s) { return RepeatedBatches(Rows(256, seed, s), 16, s); }

// The 32 rows every worker of the custom-loop job shards.
constexpr int kSharedRows = 32;
constexpr int kSharedSeed = 5;

// The dataset function of the custom-loop job's workers: its shard of
// the shared rows, as one batch of 16 served again and again. Records the
// input contexts it was given; fails when told to.
struct ShardedRows {
  absl::Mutex mu;
  std::vector<std::pair<int, int>> contexts ABSL_GUARDED_BY(mu);
  bool fail ABSL_GUARDED_BY(mu) = false;

  static TFD_Dataset* Make(void* user_data, int num_input_pipelines, int input_pipeline_id,
                           TF_Status* status) {
    auto* self = static_cast<ShardedRows*>(user_data);
    {
      absl::MutexLock lock(&self->mu);
      self->contexts.emplace_back(num_input_pipelines, input_pipeline_id);
      if (self->fail) {
        TF_SetStatus(status, TF_DATA_LOSS, "the worker's files are corrupt");
        return nullptr;
      }
    }
    Status s;
    TFD_Dataset* rows = Rows(kSharedRows, kSharedSeed, s);
    TFD_Dataset* shard = TFD_DatasetShard(rows, num_input_pipelines, input_pipeline_id, s);
    TFD_DeleteDataset(rows);
    TFD_Dataset* batches = RepeatedBatches(shard, kSharedRows / num_input_pipelines, s);
    if (s.code() != TF_OK) TF_SetStatus(status, s.code(), s.message().c_str());
    return batches;
  }
};

// The dataset function of a job whose workers' data lies in memory this
// test owns, wrapped by TF_NewTensor: its deallocator runs when the last
// user of the data (the worker's iterator over it) is gone, which the
// test sees without any hook into the library.
struct TrackedRows {
  static constexpr int kRows = 32;
  std::atomic<int> buffers_made{0};
  std::atomic<int> buffers_freed{0};

  static void Free(void* data, size_t, void* arg) {
    std::free(data);
    static_cast<TrackedRows*>(arg)->buffers_freed++;
  }

  static TFD_Dataset* Make(void* user_data, int, int, TF_Status* status) {
    auto* self = static_cast<TrackedRows*>(user_data);
    auto* x = static_cast<float*>(std::malloc(sizeof(float) * kRows * 4));
    auto* y = static_cast<int32_t*>(std::malloc(sizeof(int32_t) * kRows));
    for (int i = 0; i < kRows * 4; ++i) x[i] = static_cast<float>((i * 7) % 13) / 6 - 1;
    for (int i = 0; i < kRows; ++i) y[i] = i % 3;
    const int64_t x_dims[2] = {kRows, 4};
    const int64_t y_dims[1] = {kRows};
    TF_Tensor* parts[2] = {
        TF_NewTensor(TF_FLOAT, x_dims, 2, x, sizeof(float) * kRows * 4, Free, self),
        TF_NewTensor(TF_INT32, y_dims, 1, y, sizeof(int32_t) * kRows, Free, self)};
    self->buffers_made += 2;
    Status s;
    TFD_Dataset* rows = TFD_NewDatasetFromTensors(parts, 2, s);
    TF_DeleteTensor(parts[0]);
    TF_DeleteTensor(parts[1]);
    TFD_Dataset* batches = RepeatedBatches(rows, 16, s);
    if (s.code() != TF_OK) TF_SetStatus(status, s.code(), s.message().c_str());
    return batches;
  }
};

int RecordEpochLoss(void* user_data, int, int64_t, int epoch_end, const char* const*,
                    const double* values, int) {
  if (epoch_end) static_cast<std::vector<double>*>(user_data)->push_back(values[0]);
  return 0;
}

// A job of one ps, two workers and the chief, all in this process.
class TfdParameterServerTest : public ::testing::Test {
 protected:
  void SetUp() override {
    absl::StatusOr<std::vector<int>> ports = tfd::testing::PickFreePorts(4);
    ASSERT_TRUE(ports.ok()) << ports.status();
    ports_ = *ports;
  }

  void TearDown() override {
    TFD_DeleteModel(chief_model_);
    TFD_DeleteStrategy(chief_);
    for (TFD_Server* server : servers_) TFD_DeleteServer(server);
    for (TFD_Model* m : worker_models_) TFD_DeleteModel(m);
    for (TFD_Strategy* st : worker_strategies_) TFD_DeleteStrategy(st);
    for (TFD_Dataset* d : worker_data_) TFD_DeleteDataset(d);
    TFD_DeleteServer(ps_);
  }

  // TF_CONFIG of task `type`:`index` in a job of one chief, two workers
  // and one ps on ports_ (in that order).
  std::string TfConfig(const std::string& type, int index) const {
    return absl::StrCat(R"({"cluster": {"chief": ["localhost:)", ports_[0],
                        R"("], "worker": ["localhost:)", ports_[1], R"(", "localhost:)", ports_[2],
                        R"("], "ps": ["localhost:)", ports_[3], R"("]}, "task": {"type": ")", type,
                        R"(", "index": )", index, "}}");
  }

  TFD_Strategy* NewStrategy(const std::string& type, int index, Status& s) {
    TFD_Options* o = TaskOptions(TfConfig(type, index), s);
    TFD_OptionsSetDouble(o, "connect_timeout_seconds", 10, s);
    TFD_Strategy* strategy = TFD_NewStrategy("parameter_server", o, s);
    TFD_DeleteOptions(o);
    return strategy;
  }

  // The ps, then the workers, each serving WorkerData(w + 1) or, with
  // `rows`, the shards ShardedRows makes; then the chief's model.
  void StartJob(ShardedRows* rows = nullptr) {
    if (rows != nullptr) {
      StartJobServing(&ShardedRows::Make, rows);
    } else {
      StartJobServing(nullptr, nullptr);
    }
  }

  // StartJob, with the workers serving what `dataset_fn` makes (when not
  // null).
  void StartJobServing(TFD_DatasetFn dataset_fn, void* user_data) {
    Status s;
    TFD_Options* ps_options = TaskOptions(TfConfig("ps", 0), s);
    ps_ = TFD_StartParameterServer(ps_options, s);
    TFD_DeleteOptions(ps_options);
    ASSERT_TF_OK(s);
    for (int w = 0; w < 2; ++w) {
      worker_strategies_.push_back(NewStrategy("worker", w, s));
      ASSERT_TF_OK(s);
      EXPECT_EQ(TFD_StrategyNumReplicas(worker_strategies_.back(), s), 1);
      worker_models_.push_back(NamedMlp(worker_strategies_.back(), s));
      ASSERT_TF_OK(s);
      if (dataset_fn != nullptr) {
        servers_.push_back(TFD_ModelServeTrainStepsFromFunction(worker_models_.back(),
                                                                dataset_fn, user_data, s));
      } else {
        worker_data_.push_back(WorkerData(w + 1, s));
        ASSERT_TF_OK(s);
        servers_.push_back(TFD_ModelServeTrainSteps(worker_models_.back(), worker_data_.back(), s));
      }
      ASSERT_TF_OK(s);
    }
    chief_ = NewStrategy("chief", 0, s);
    ASSERT_TF_OK(s);
    chief_model_ = NamedMlp(chief_, s);
    ASSERT_TF_OK(s);
  }

  // The chief model's loss on shard `index` of the shared rows.
  double ShardLoss(int index) {
    Status s;
    TFD_Dataset* rows = Rows(kSharedRows, kSharedSeed, s);
    TFD_Dataset* shard = TFD_DatasetShard(rows, 2, index, s);
    TFD_Dataset* batch = TFD_DatasetBatch(shard, kSharedRows / 2, 0, s);
    double loss = -1;
    TFD_ModelEvaluate(chief_model_, batch, &loss, 1, s);
    EXPECT_TF_OK(s);
    for (TFD_Dataset* d : {rows, shard, batch}) TFD_DeleteDataset(d);
    return loss;
  }

  std::vector<int> ports_;
  TFD_Server* ps_ = nullptr;
  std::vector<TFD_Strategy*> worker_strategies_;
  std::vector<TFD_Model*> worker_models_;
  std::vector<TFD_Dataset*> worker_data_;
  std::vector<TFD_Server*> servers_;
  TFD_Strategy* chief_ = nullptr;
  TFD_Model* chief_model_ = nullptr;
};

TEST_F(TfdParameterServerTest, WorkersTrainTheChiefsModelThroughThePs) {
  ASSERT_NO_FATAL_FAILURE(StartJob());
  Status s;
  TFD_Dataset* unread = WorkerData(9, s);  // The chief's data is the workers'.
  TFD_Options* fit = TFD_NewOptions();
  TFD_OptionsSetInt(fit, "epochs", 3, s);
  TFD_OptionsSetInt(fit, "steps_per_epoch", 30, s);
  std::vector<double> epoch_losses;
  TFD_ModelFitWithOptions(chief_model_, unread, nullptr, fit, RecordEpochLoss, &epoch_losses, s);
  TFD_DeleteOptions(fit);
  ASSERT_TF_OK(s);
  ASSERT_EQ(epoch_losses.size(), 3u);
  EXPECT_LT(epoch_losses.back(), 0.8 * epoch_losses.front());

  // The chief's model holds the ps's values: it evaluates as trained.
  TFD_Options* steps = TFD_NewOptions();
  TFD_OptionsSetInt(steps, "steps", 4, s);
  double loss_and_accuracy[2] = {0, 0};
  EXPECT_EQ(TFD_ModelEvaluateWithOptions(chief_model_, unread, steps, loss_and_accuracy, 2, s), 2);
  ASSERT_TF_OK(s);
  EXPECT_LT(loss_and_accuracy[0], epoch_losses.front());
  TFD_DeleteOptions(steps);
  TFD_DeleteDataset(unread);
}

TEST_F(TfdParameterServerTest, CustomLoopSchedulesStepsOnTheWorkersShards) {
  ShardedRows rows;
  ASSERT_NO_FATAL_FAILURE(StartJob(&rows));
  Status s;
  const double initial = ShardLoss(0);
  TFD_Coordinator* coordinator = TFD_NewCoordinator(chief_model_, s);
  ASSERT_TF_OK(s);
  {
    // Each worker made its dataset for its own place among two.
    absl::MutexLock lock(&rows.mu);
    std::vector<std::pair<int, int>> contexts = rows.contexts;
    std::sort(contexts.begin(), contexts.end());
    EXPECT_EQ(contexts, (std::vector<std::pair<int, int>>{{2, 0}, {2, 1}}));
  }

  // Three "epochs" of 20 steps, each ended by a join, as TensorFlow's loop.
  std::vector<double> epoch_losses;
  for (int epoch = 0; epoch < 3; ++epoch) {
    TFD_ModelResetMetrics(chief_model_, s);
    std::vector<TFD_RemoteValue*> losses;
    for (int step = 0; step < 20; ++step) {
      losses.push_back(TFD_CoordinatorScheduleTrainStep(coordinator, s));
      ASSERT_TF_OK(s);
    }
    TFD_CoordinatorJoin(coordinator, s);
    ASSERT_TF_OK(s);
    EXPECT_EQ(TFD_CoordinatorDone(coordinator, s), 1);
    double sum = 0;
    for (TFD_RemoteValue* value : losses) {
      sum += TFD_RemoteValueFetch(value, s);
      EXPECT_TF_OK(s);
      TFD_DeleteRemoteValue(value);
    }
    epoch_losses.push_back(sum / losses.size());
    // The metric counts every joined step of the epoch: a fraction of
    // its 20 * 16 examples.
    const float accuracy = TFD_ModelMetricValue(chief_model_, 0, s);
    EXPECT_TF_OK(s);
    EXPECT_GT(accuracy, 0.0f);
    EXPECT_LE(accuracy, 1.0f);
  }
  EXPECT_LT(epoch_losses.back(), 0.8 * epoch_losses.front());
  TFD_ModelResetMetrics(chief_model_, s);
  EXPECT_EQ(TFD_ModelMetricValue(chief_model_, 0, s), 0.0f);

  // After a join the chief's model holds the ps's values.
  const double trained = ShardLoss(0);
  EXPECT_LT(trained, 0.8 * initial);
  const std::string prefix = ::testing::TempDir() + "/custom_loop_ckpt";
  TF_Buffer* saved = TFD_ModelSaveCheckpoint(chief_model_, prefix.c_str(), s);
  ASSERT_TF_OK(s);
  const std::string checkpoint(static_cast<const char*>(saved->data), saved->length);
  TF_DeleteBuffer(saved);
  const double at_checkpoint[2] = {trained, ShardLoss(1)};
  for (int step = 0; step < 10; ++step)
    TFD_DeleteRemoteValue(TFD_CoordinatorScheduleTrainStep(coordinator, s));
  TFD_CoordinatorJoin(coordinator, s);
  ASSERT_TF_OK(s);
  EXPECT_NE(ShardLoss(0), at_checkpoint[0]);

  // A checkpoint restored between joins is written to the ps before the
  // next step: that step's loss is the restored model's on its worker's
  // shard.
  TFD_ModelRestoreCheckpoint(chief_model_, checkpoint.c_str(), s);
  ASSERT_TF_OK(s);
  TFD_RemoteValue* first = TFD_CoordinatorScheduleTrainStep(coordinator, s);
  ASSERT_TF_OK(s);
  const double loss = TFD_RemoteValueFetch(first, s);
  ASSERT_TF_OK(s);
  EXPECT_TRUE(std::abs(loss - at_checkpoint[0]) < 1e-5 * at_checkpoint[0] ||
              std::abs(loss - at_checkpoint[1]) < 1e-5 * at_checkpoint[1])
      << loss << " is neither " << at_checkpoint[0] << " nor " << at_checkpoint[1];
  TFD_DeleteRemoteValue(first);
  TFD_CoordinatorJoin(coordinator, s);
  EXPECT_TF_OK(s);
  TFD_DeleteCoordinator(coordinator);

  // A dataset function's error fails the chief's call that made the
  // iterators, and names the worker's input pipeline.
  {
    absl::MutexLock lock(&rows.mu);
    rows.fail = true;
  }
  EXPECT_EQ(TFD_NewCoordinator(chief_model_, s), nullptr);
  EXPECT_EQ(s.code(), TF_DATA_LOSS) << s.message();
  EXPECT_NE(s.message().find("the worker's files are corrupt"), std::string::npos) << s.message();
  EXPECT_NE(s.message().find("input pipeline id"), std::string::npos) << s.message();
}

// TFD_DeleteCoordinator releases the iterators it made on the workers:
// the data under them is freed then, and not before.
TEST_F(TfdParameterServerTest, DeletingTheCoordinatorReleasesTheWorkersIterators) {
  TrackedRows rows;
  ASSERT_NO_FATAL_FAILURE(StartJobServing(&TrackedRows::Make, &rows));
  Status s;
  for (int round = 1; round <= 2; ++round) {
    SCOPED_TRACE(::testing::Message() << "coordinator " << round);
    TFD_Coordinator* coordinator = TFD_NewCoordinator(chief_model_, s);
    ASSERT_TF_OK(s);
    // Each worker made its dataset: two buffers each, all in use.
    EXPECT_EQ(rows.buffers_made.load(), 4 * round);
    for (int step = 0; step < 4; ++step) {
      TFD_DeleteRemoteValue(TFD_CoordinatorScheduleTrainStep(coordinator, s));
      ASSERT_TF_OK(s);
    }
    TFD_CoordinatorJoin(coordinator, s);
    ASSERT_TF_OK(s);
    EXPECT_EQ(rows.buffers_freed.load(), 4 * (round - 1));
    // The release reaches every worker before TFD_DeleteCoordinator
    // returns.
    TFD_DeleteCoordinator(coordinator);
    EXPECT_EQ(rows.buffers_freed.load(), 4 * round);
  }
  TFD_DeleteCoordinator(nullptr);  // A no-op.
}

TEST_F(TfdParameterServerTest, RolesRefuseWhatTheyDoNotDo) {
  ASSERT_NO_FATAL_FAILURE(StartJob());
  Status s;
  TF_Tensor *x, *y;
  MakeBatch(8, 3, &x, &y);
  TFD_Dataset* unread = WorkerData(9, s);
  TFD_ModelFit(chief_model_, unread, 1, nullptr, nullptr, s);  // No steps_per_epoch.
  EXPECT_EQ(s.code(), TF_INVALID_ARGUMENT) << s.message();
  TFD_ModelTrainStep(chief_model_, x, y, s);  // Steps run on the workers.
  EXPECT_EQ(s.code(), TF_UNIMPLEMENTED) << s.message();
  EXPECT_NE(s.message().find("TFD_Coordinator"), std::string::npos) << s.message();
  EXPECT_EQ(TFD_ModelServeTrainSteps(chief_model_, unread, s),
            nullptr);  // The chief serves nothing.
  EXPECT_EQ(s.code(), TF_FAILED_PRECONDITION) << s.message();
  EXPECT_EQ(TFD_NewCoordinator(worker_models_[0], s), nullptr);  // Workers do not coordinate.
  EXPECT_EQ(s.code(), TF_FAILED_PRECONDITION) << s.message();
  TFD_Options* chief_options = TaskOptions(TfConfig("chief", 0), s);
  EXPECT_EQ(TFD_StartParameterServer(chief_options, s), nullptr);  // Not a ps task.
  EXPECT_EQ(s.code(), TF_INVALID_ARGUMENT) << s.message();
  TFD_Options* ps_options = TaskOptions(TfConfig("ps", 0), s);
  EXPECT_EQ(TFD_NewStrategy("parameter_server", ps_options, s), nullptr);  // A ps task.
  EXPECT_EQ(s.code(), TF_INVALID_ARGUMENT) << s.message();

  // A model not compiled yet has no step to schedule.
  TFD_Model* raw = TFD_NewSequential(chief_, "raw", s);
  EXPECT_EQ(TFD_NewCoordinator(raw, s), nullptr);
  EXPECT_EQ(s.code(), TF_FAILED_PRECONDITION) << s.message();
  TFD_DeleteModel(raw);

  TF_DeleteTensor(x);
  TF_DeleteTensor(y);
  TFD_DeleteOptions(chief_options);
  TFD_DeleteOptions(ps_options);
  TFD_DeleteDataset(unread);
}

TEST_F(TfdParameterServerTest, ClusterTaskTypeReadsTheTask) {
  Status s;
  for (const auto& [type, index] :
       std::vector<std::pair<std::string, int>>{{"chief", 0}, {"worker", 1}, {"ps", 0}}) {
    TFD_Options* o = TaskOptions(TfConfig(type, index), s);
    int task_index = -1;
    const char* task_type = TFD_ClusterTaskType(o, &task_index, s);
    ASSERT_TF_OK(s);
    EXPECT_EQ(task_type, type);
    EXPECT_EQ(task_index, index);
    TFD_DeleteOptions(o);
  }
  TFD_Options* o = TaskOptions(TfConfig("worker", 5), s);  // There are two workers.
  EXPECT_EQ(TFD_ClusterTaskType(o, nullptr, s), nullptr);
  EXPECT_EQ(s.code(), TF_INVALID_ARGUMENT) << s.message();
  TFD_OptionsSetInt(o, "num_replicas", 2, s);
  EXPECT_EQ(TFD_ClusterTaskType(o, nullptr, s), nullptr);
  EXPECT_EQ(s.code(), TF_UNIMPLEMENTED) << s.message();
  TFD_DeleteOptions(o);
}

TEST_F(TfdParameterServerTest, APsThatNeverStartsIsNamed) {
  Status s;
  TFD_Options* o = TaskOptions(TfConfig("chief", 0), s);
  TFD_OptionsSetDouble(o, "connect_timeout_seconds", 1, s);
  EXPECT_EQ(TFD_NewStrategy("parameter_server", o, s), nullptr);
  EXPECT_EQ(s.code(), TF_DEADLINE_EXCEEDED) << s.message();
  EXPECT_NE(s.message().find(absl::StrCat(":", ports_[3])), std::string::npos) << s.message();
  TFD_DeleteOptions(o);
}

}  // namespace
}  // namespace capi
}  // namespace tfd
