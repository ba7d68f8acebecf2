#include "core/data/dataset.h"

#include <cstring>

#include "absl/strings/str_cat.h"
#include "core/data/internal/host_pipeline_scope.h"
#include "core/framework/status.h"

namespace tfd {
namespace data {

namespace {

class FnIterator : public Iterator {
 public:
  explicit FnIterator(NextFn next) : next_(std::move(next)) {}
  absl::StatusOr<std::optional<Element>> GetNext() override {
    internal::HostPipelineScope on_host;
    return next_();
  }

 private:
  NextFn next_;
};

class FnDataset : public Dataset {
 public:
  FnDataset(std::string debug_string, int64_t cardinality, IteratorFactory factory,
            FileSourceFn file_source)
      : debug_string_(std::move(debug_string)),
        cardinality_(cardinality),
        factory_(std::move(factory)),
        file_source_(std::move(file_source)) {}
  absl::StatusOr<std::unique_ptr<Iterator>> MakeIterator() const override { return factory_(); }
  int64_t Cardinality() const override { return cardinality_; }
  std::string DebugString() const override { return debug_string_; }
  absl::StatusOr<FileSource> SourceFiles() const override {
    return file_source_ ? file_source_() : Dataset::SourceFiles();
  }

 private:
  const std::string debug_string_;
  const int64_t cardinality_;
  const IteratorFactory factory_;
  const FileSourceFn file_source_;
};

}  // namespace

absl::StatusOr<FileSource> Dataset::SourceFiles() const {
  return absl::NotFoundError(
      absl::StrCat("found no file reader to shard: ", DebugString(),
                   " reads no files (FILE sharding needs a pipeline over TFRecordDataset or "
                   "CsvDataset)"));
}

FileSourceFn ReadsFiles(std::vector<std::string> files,
                        std::function<absl::StatusOr<DatasetPtr>(std::vector<std::string>)> rebuild) {
  return [files = std::move(files), rebuild = std::move(rebuild)]() -> absl::StatusOr<FileSource> {
    return FileSource{files, rebuild};
  };
}

FileSourceFn TransformOf(DatasetPtr input,
                         std::function<absl::StatusOr<DatasetPtr>(DatasetPtr)> reapply) {
  return [input = std::move(input), reapply = std::move(reapply)]() -> absl::StatusOr<FileSource> {
    TFD_ASSIGN_OR_RETURN(FileSource source, input->SourceFiles());
    auto rebuild_input = std::move(source.rebuild);
    source.rebuild = [rebuild_input, reapply](
                         std::vector<std::string> files) -> absl::StatusOr<DatasetPtr> {
      TFD_ASSIGN_OR_RETURN(DatasetPtr rebuilt, rebuild_input(std::move(files)));
      return reapply(std::move(rebuilt));
    };
    return source;
  };
}

std::unique_ptr<Iterator> IteratorFromFn(NextFn next) {
  return std::make_unique<FnIterator>(std::move(next));
}

DatasetPtr DatasetFromFn(std::string debug_string, int64_t cardinality,
                         IteratorFactory factory, FileSourceFn file_source) {
  return std::make_shared<FnDataset>(std::move(debug_string), cardinality, std::move(factory),
                                     std::move(file_source));
}

absl::StatusOr<std::vector<Element>> Collect(const DatasetPtr& dataset) {
  if (dataset->Cardinality() == kInfiniteCardinality) {
    return InvalidArgument("cannot collect the infinite dataset ", dataset->DebugString());
  }
  TFD_ASSIGN_OR_RETURN(std::unique_ptr<Iterator> it, dataset->MakeIterator());
  std::vector<Element> out;
  while (true) {
    TFD_ASSIGN_OR_RETURN(std::optional<Element> e, it->GetNext());
    if (!e) return out;
    out.push_back(*std::move(e));
  }
}

absl::StatusOr<Tensor> Stack(const std::vector<Tensor>& parts) {
  if (parts.empty()) return InvalidArgument("Stack: nothing to stack");
  const Tensor& first = parts[0];
  TensorShape shape = first.shape();
  shape.InsertDim(0, static_cast<int64_t>(parts.size()));
  for (size_t i = 1; i < parts.size(); ++i) {
    if (parts[i].dtype() != first.dtype() || parts[i].shape() != first.shape()) {
      return InvalidArgument("cannot batch elements of different shapes: element 0 is ",
                             DataTypeName(first.dtype()), " ", first.shape().DebugString(),
                             ", element ", i, " is ", DataTypeName(parts[i].dtype()), " ",
                             parts[i].shape().DebugString());
    }
  }
  TFD_ASSIGN_OR_RETURN(Tensor out, Tensor::Allocate(first.dtype(), shape));
  if (first.dtype() == DT_STRING) {
    const int64_t n = first.NumElements();
    for (size_t i = 0; i < parts.size(); ++i) {
      for (int64_t k = 0; k < n; ++k) {
        out.data<std::string>()[i * n + k] = parts[i].data<std::string>()[k];
      }
    }
    return out;
  }
  const size_t bytes = first.TotalBytes();
  char* dst = static_cast<char*>(out.raw_data());
  for (size_t i = 0; i < parts.size(); ++i) {
    if (!parts[i].device()->host_memory()) {
      return InvalidArgument("Stack: element ", i, " is on ", parts[i].device()->name(),
                             "; datasets produce host tensors");
    }
    if (bytes > 0) std::memcpy(dst + i * bytes, parts[i].raw_data(), bytes);
  }
  return out;
}

}  // namespace data
}  // namespace tfd
