#include "core/nn/callbacks/callback.h"

#include <memory>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "core/nn/dense.h"
#include "core/nn/layer_testutil.h"
#include "core/nn/model.h"
#include "core/nn/sequential.h"
#include "gtest/gtest.h"

namespace tfd {
namespace nn {
namespace {

TEST(LogsTest, KeepsInsertionOrderAndReplacesInPlace) {
  Logs logs;
  logs.Set("loss", 0.5);
  logs.Set("accuracy", 0.25);
  logs.Set("val_loss", 0.75);
  logs.Set("loss", 0.125);  // an update keeps the key's place
  ASSERT_EQ(logs.size(), 3u);
  EXPECT_EQ(logs.entries()[0].first, "loss");
  EXPECT_EQ(logs.entries()[0].second, 0.125);
  EXPECT_EQ(logs.entries()[1].first, "accuracy");
  EXPECT_EQ(logs.entries()[2].first, "val_loss");
  EXPECT_EQ(logs.Get("accuracy"), 0.25);
  EXPECT_FALSE(logs.Get("val_accuracy").has_value());
  EXPECT_TRUE(logs.Contains("val_loss"));
  EXPECT_EQ(logs.DebugString(), "loss: 0.1250 - accuracy: 0.2500 - val_loss: 0.7500");
  logs.Clear();
  EXPECT_TRUE(logs.empty());
}

TEST(LogsTest, InitializerListAndEquality) {
  Logs a{{"loss", 1.0}, {"accuracy", 0.5}};
  Logs b;
  b.Set("loss", 1.0);
  b.Set("accuracy", 0.5);
  EXPECT_EQ(a, b);
  Logs c{{"accuracy", 0.5}, {"loss", 1.0}};
  EXPECT_FALSE(a == c);  // order matters
}

// Records every hook it sees as text, and optionally adds a log entry or
// fails.
class Recorder : public Callback {
 public:
  Recorder(std::string name, std::vector<std::string>* events) : name_(name), events_(events) {}
  absl::Status OnTrainBegin(const Logs& logs) override { return Note("train_begin"); }
  absl::Status OnEpochBegin(int epoch, const Logs& logs) override {
    return Note(absl::StrCat("epoch_begin ", epoch));
  }
  absl::Status OnEpochEnd(int epoch, Logs& logs) override {
    if (add_key_) logs.Set(name_, epoch);
    return Note(absl::StrCat("epoch_end ", epoch, " {", logs.DebugString(), "}"));
  }
  absl::Status OnTrainBatchEnd(int64_t batch, Logs& logs) override {
    return Note(absl::StrCat("batch_end ", batch));
  }
  absl::Status OnTestEnd(Logs& logs) override { return Note("test_end"); }
  absl::Status OnPredictBatchBegin(int64_t batch, const Logs& logs) override {
    return Note(absl::StrCat("predict_batch_begin ", batch));
  }

  bool add_key_ = false;
  bool fail_ = false;

 private:
  absl::Status Note(const std::string& what) {
    events_->push_back(name_ + ": " + what);
    if (fail_) return absl::InternalError(name_ + " failed");
    return absl::OkStatus();
  }
  std::string name_;
  std::vector<std::string>* events_;
};

TEST(CallbackListTest, DispatchesInOrderAndSharesEndLogs) {
  std::vector<std::string> events;
  auto a = std::make_shared<Recorder>("a", &events);
  auto b = std::make_shared<Recorder>("b", &events);
  a->add_key_ = true;
  CallbackList list;
  ASSERT_TRUE(list.Add(a).ok());
  ASSERT_TRUE(list.Add(b).ok());
  ASSERT_EQ(list.callbacks().size(), 2u);

  ASSERT_TRUE(list.OnTrainBegin(Logs()).ok());
  ASSERT_TRUE(list.OnEpochBegin(0, Logs()).ok());
  Logs batch_logs{{"loss", 2.0}};
  ASSERT_TRUE(list.OnTrainBatchEnd(7, batch_logs).ok());
  Logs epoch_logs{{"loss", 1.5}};
  ASSERT_TRUE(list.OnEpochEnd(0, epoch_logs).ok());
  ASSERT_TRUE(list.OnTestEnd(epoch_logs).ok());
  ASSERT_TRUE(list.OnPredictBatchBegin(3, Logs()).ok());

  // b sees the entry a added to the shared epoch logs.
  EXPECT_EQ(events, (std::vector<std::string>{
                        "a: train_begin", "b: train_begin", "a: epoch_begin 0",
                        "b: epoch_begin 0", "a: batch_end 7", "b: batch_end 7",
                        "a: epoch_end 0 {loss: 1.5000 - a: 0.0000}",
                        "b: epoch_end 0 {loss: 1.5000 - a: 0.0000}", "a: test_end",
                        "b: test_end", "a: predict_batch_begin 3", "b: predict_batch_begin 3"}));
  EXPECT_EQ(epoch_logs.Get("a"), 0.0);
}

TEST(CallbackListTest, FirstErrorStopsTheDispatch) {
  std::vector<std::string> events;
  auto a = std::make_shared<Recorder>("a", &events);
  auto b = std::make_shared<Recorder>("b", &events);
  a->fail_ = true;
  CallbackList list;
  ASSERT_TRUE(list.Add(a).ok());
  ASSERT_TRUE(list.Add(b).ok());
  absl::Status s = list.OnTrainBegin(Logs());
  EXPECT_EQ(s.code(), absl::StatusCode::kInternal);
  EXPECT_EQ(s.message(), "a failed");
  EXPECT_EQ(events, std::vector<std::string>{"a: train_begin"});
}

TEST(CallbackListTest, RefusesNullCallback) {
  CallbackList list;
  absl::Status s = list.Add(nullptr);
  EXPECT_EQ(s.code(), absl::StatusCode::kInvalidArgument);
  EXPECT_TRUE(list.callbacks().empty());
}

// A callback that stops training through its model, as EarlyStopping does.
class StopAtEpoch : public Callback {
 public:
  absl::Status OnEpochEnd(int epoch, Logs& logs) override {
    if (epoch == 1) model()->set_stop_training(true);
    return absl::OkStatus();
  }
};

TEST(CallbackListTest, ParamsAndModelReachEveryCallbackAndStopTraining) {
  ASSERT_OK_AND_ASSIGN(auto model, Sequential::Make({std::make_shared<Dense>(2)}));
  EXPECT_FALSE(model->stop_training());
  EXPECT_EQ(model->optimizer(), nullptr);  // not compiled

  auto stop = std::make_shared<StopAtEpoch>();
  std::vector<std::string> events;
  auto rec = std::make_shared<Recorder>("r", &events);
  CallbackList list;
  ASSERT_TRUE(list.Add(stop).ok());
  ASSERT_TRUE(list.Add(rec).ok());
  CallbackParams params;
  params.epochs = 5;
  params.steps = 188;
  params.verbose = 2;
  list.SetParams(params);
  list.SetModel(model.get());
  EXPECT_EQ(stop->model(), model.get());
  EXPECT_EQ(rec->model(), model.get());
  EXPECT_EQ(rec->params().epochs, 5);
  EXPECT_EQ(rec->params().steps, 188);
  EXPECT_EQ(rec->params().verbose, 2);

  Logs logs;
  ASSERT_TRUE(list.OnEpochEnd(0, logs).ok());
  EXPECT_FALSE(model->stop_training());
  ASSERT_TRUE(list.OnEpochEnd(1, logs).ok());
  EXPECT_TRUE(model->stop_training());
}

}  // namespace
}  // namespace nn
}  // namespace tfd
