// The C++ half of the TensorBoard interop check (event_file_test.py):
//   event_file_interop LOGDIR
// writes two event files into LOGDIR with EventFileWriter:
//   the TF2 form (tensor + "scalars" metadata): "loss" = 1 / (step + 1) and
//   "accuracy" = step / 10 for steps 0..9;
//   the TF1 form (simple_value), suffix ".v1": "lr" = 0.1 * 0.5^step for
//   steps 0..4.
// The Python side recomputes the values and loads the files with
// TensorBoard's own readers. Exit status 1 on any write error.
#include <cmath>
#include <cstdio>
#include <memory>
#include <string>

#include "core/io/event_file_writer.h"

namespace tfd {
namespace {

int Fail(const absl::Status& s) {
  std::fprintf(stderr, "event_file_interop: %s\n", std::string(s.message()).c_str());
  return 1;
}

int Run(const std::string& logdir) {
  auto tf2 = io::EventFileWriter::Create(logdir);
  if (!tf2.ok()) return Fail(tf2.status());
  for (int step = 0; step < 10; ++step) {
    absl::Status s = (*tf2)->WriteScalar("loss", 1.0f / (step + 1), step);
    if (s.ok()) s = (*tf2)->WriteScalar("accuracy", step / 10.0f, step);
    if (!s.ok()) return Fail(s);
  }
  if (absl::Status s = (*tf2)->Close(); !s.ok()) return Fail(s);

  io::EventFileWriterOptions options;
  options.scalar_form = io::EventFileWriterOptions::ScalarForm::kSimpleValue;
  options.filename_suffix = ".v1";
  auto tf1 = io::EventFileWriter::Create(logdir, options);
  if (!tf1.ok()) return Fail(tf1.status());
  for (int step = 0; step < 5; ++step) {
    absl::Status s = (*tf1)->WriteScalar("lr", 0.1f * std::pow(0.5f, step), step);
    if (!s.ok()) return Fail(s);
  }
  if (absl::Status s = (*tf1)->Close(); !s.ok()) return Fail(s);
  std::printf("%s\n%s\n", (*tf2)->filename().c_str(), (*tf1)->filename().c_str());
  return 0;
}

}  // namespace
}  // namespace tfd

int main(int argc, char** argv) {
  if (argc != 2) {
    std::fprintf(stderr, "usage: %s LOGDIR\n", argv[0]);
    return 2;
  }
  return tfd::Run(argv[1]);
}
