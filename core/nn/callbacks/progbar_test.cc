// Progbar's text against tf-keras 2.21's Progbar driven by the same fake
// clock (testdata/progbar_golden.py prints the expected strings).
#include "core/nn/callbacks/progbar.h"

#include <string>
#include <utility>
#include <vector>

#include "gtest/gtest.h"

namespace tfd {
namespace nn {
namespace {

using Values = std::vector<std::pair<std::string, double>>;

std::string Bs(int n) { return std::string(n, '\b'); }

// A progress bar writing into `out`, reading the time from `*now`.
struct Fixture {
  double now = 100.0;
  std::string out;
  ProgbarIo Io(bool dynamic) {
    ProgbarIo io;
    io.clock = [this] { return now; };
    io.write = [this](absl::string_view text) { out.append(text.data(), text.size()); };
    io.dynamic_display = dynamic;
    return io;
  }
};

const std::set<std::string> kModelMetrics = {"loss", "accuracy"};
const Values kFirst = {{"loss", 0.75}, {"accuracy", 0.25}};
const Values kLast = {{"loss", 0.5}, {"accuracy", 0.5}};

TEST(ProgbarTest, Verbose1OnATerminalRedrawsTheLine) {
  Fixture f;
  Progbar bar(3, 1, kModelMetrics, f.Io(true));
  f.now = 100.5;
  bar.Update(1, kFirst, false);
  f.now = 101.0;
  bar.Update(2, kFirst, false);
  f.now = 101.25;
  bar.Update(3, kLast, true);
  EXPECT_EQ(f.out,
            "\r1/3 [=========>....................] - ETA: 1s - loss: 0.7500 - accuracy: 0.2500" +
                Bs(80) +
                "\r2/3 [===================>..........] - ETA: 0s - loss: 0.7500 - accuracy: "
                "0.2500" +
                Bs(80) +
                "\r3/3 [==============================] - 1s 375ms/step - loss: 0.5000 - "
                "accuracy: 0.5000\n");
}

TEST(ProgbarTest, Verbose1OffATerminalWritesOnlyTheFinishedLine) {
  Fixture f;
  Progbar bar(3, 1, kModelMetrics, f.Io(false));
  f.now = 100.5;
  bar.Update(1, kFirst, false);
  f.now = 101.0;
  bar.Update(2, kFirst, false);
  EXPECT_EQ(f.out, "");
  f.now = 101.25;
  bar.Update(3, kLast);  // finalize: current >= target
  EXPECT_EQ(f.out,
            "3/3 [==============================] - 1s 375ms/step - loss: 0.5000 - accuracy: "
            "0.5000\n");
}

TEST(ProgbarTest, Verbose2WritesOneLinePerEpoch) {
  Fixture f;
  Progbar bar(3, 2, kModelMetrics, f.Io(true));
  f.now = 100.5;
  bar.Update(1, kFirst, false);
  f.now = 101.0;
  bar.Update(2, kFirst, false);
  EXPECT_EQ(f.out, "");
  f.now = 103.5;
  bar.Update(3, kLast, true);
  EXPECT_EQ(f.out, "3/3 - 4s - loss: 0.5000 - accuracy: 0.5000 - 4s/epoch - 1s/step\n");
}

TEST(ProgbarTest, EtaFormatsSmallValuesIntervalAndPadding) {
  Fixture f;
  Progbar bar(188, 1, {"loss"}, f.Io(true));
  f.now = 110.0;
  bar.Update(1, {{"loss", 0.0001}}, false);
  f.now = 110.01;  // within the 0.05 s interval: not drawn
  bar.Update(2, {{"loss", 2.5}}, false);
  f.now = 4000.0;
  bar.Update(3, {{"loss", 2.5}}, false);
  EXPECT_EQ(f.out,
            "\r  1/188 [..............................] - ETA: 31:10 - loss: 1.0000e-04" + Bs(72) +
                "\r  3/188 [..............................] - ETA: 99:57:05 - loss: 2.5000 ");
}

TEST(ProgbarTest, UnknownTargetShowsMicroseconds) {
  Fixture f;
  Progbar bar(std::nullopt, 1, {"loss"}, f.Io(true));
  f.now = 100.002;
  bar.Update(5, {{"loss", 1.5}}, false);
  f.now = 100.004;
  bar.Update(9, {{"loss", 1.25}}, true);
  EXPECT_EQ(f.out, "\r      5/Unknown - 0s 400us/step - loss: 1.5000" + Bs(46) +
                       "\r      9/Unknown - 0s 444us/step - loss: 1.2500\n");
}

TEST(ProgbarTest, AveragesValuesThatAreNotStateful) {
  Fixture f;
  Progbar bar(4, 1, {}, f.Io(true));
  f.now = 100.1;
  bar.Update(1, {{"lr", 1.0}}, false);
  f.now = 100.2;
  bar.Update(3, {{"lr", 4.0}}, false);  // covers two steps
  f.now = 100.3;
  bar.Update(4, {{"lr", -0.0002}}, true);
  EXPECT_EQ(f.out, "\r1/4 [======>.......................] - ETA: 0s - lr: 1.0000" + Bs(59) +
                       "\r3/4 [=====================>........] - ETA: 0s - lr: 3.0000" + Bs(59) +
                       "\r4/4 [==============================] - 0s 67ms/step - lr: 2.2500\n");
}

TEST(ProgbarTest, FormatStepTimeUnits) {
  EXPECT_EQ(FormatStepTime(2.4, "step"), " 2s/step");
  EXPECT_EQ(FormatStepTime(0.0094, "step"), " 9ms/step");
  EXPECT_EQ(FormatStepTime(0.0000125, "step"), " 12us/step");
  EXPECT_EQ(FormatStepTime(0, "epoch"), " 0s/epoch");
}

}  // namespace
}  // namespace nn
}  // namespace tfd
