#include "core/nn/callbacks/history.h"

#include "gtest/gtest.h"

namespace tfd {
namespace nn {
namespace {

TEST(HistoryTest, KeepsOneSeriesPerKeyInFirstSeenOrder) {
  History history;
  ASSERT_TRUE(history.OnTrainBegin(Logs()).ok());
  Logs first{{"loss", 0.5}, {"accuracy", 0.75}};
  ASSERT_TRUE(history.OnEpochEnd(0, first).ok());
  Logs second{{"loss", 0.25}, {"accuracy", 0.875}, {"val_loss", 0.3}};
  ASSERT_TRUE(history.OnEpochEnd(1, second).ok());

  EXPECT_EQ(history.epoch(), (std::vector<int>{0, 1}));
  ASSERT_EQ(history.history().size(), 3u);
  EXPECT_EQ(history.history()[0].first, "loss");
  EXPECT_EQ(history.history()[2].first, "val_loss");
  EXPECT_EQ(history.Get("loss"), (std::vector<double>{0.5, 0.25}));
  EXPECT_EQ(history.Get("accuracy"), (std::vector<double>{0.75, 0.875}));
  EXPECT_EQ(history.Get("val_loss"), (std::vector<double>{0.3}));
  EXPECT_TRUE(history.Get("val_accuracy").empty());

  // A new run clears the epochs and, as Keras, extends the series.
  ASSERT_TRUE(history.OnTrainBegin(Logs()).ok());
  EXPECT_TRUE(history.epoch().empty());
  Logs third{{"loss", 0.125}};
  ASSERT_TRUE(history.OnEpochEnd(0, third).ok());
  EXPECT_EQ(history.Get("loss"), (std::vector<double>{0.5, 0.25, 0.125}));
}

}  // namespace
}  // namespace nn
}  // namespace tfd
