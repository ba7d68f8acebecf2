// The dataset sources and transforms, named and behaving as tf.data's.
// Each returns a new dataset and leaves its input unchanged. Bad arguments
// (a zero batch size, a shard index out of range) are INVALID_ARGUMENT.
#ifndef TFD_CORE_DATA_TRANSFORMS_H_
#define TFD_CORE_DATA_TRANSFORMS_H_

#include <functional>

#include "absl/status/statusor.h"
#include "core/data/dataset.h"

namespace tfd {
namespace data {

// Element i is {components[0][i], components[1][i], ...}: views, no copy.
// All components must be host tensors of rank >= 1 with the same dim 0.
absl::StatusOr<DatasetPtr> FromTensorSlices(const std::vector<Tensor>& components);

// Consecutive elements stacked along a new dim 0. The last batch may be
// smaller unless drop_remainder.
absl::StatusOr<DatasetPtr> Batch(DatasetPtr input, int64_t batch_size, bool drop_remainder);

// The input `count` times; -1 repeats forever.
absl::StatusOr<DatasetPtr> Repeat(DatasetPtr input, int64_t count = -1);

// The first `count` elements (-1: all); all but the first `count`.
absl::StatusOr<DatasetPtr> Take(DatasetPtr input, int64_t count);
absl::StatusOr<DatasetPtr> Skip(DatasetPtr input, int64_t count);

// Every num_shards-th element starting at `index` (tf.data's shard).
absl::StatusOr<DatasetPtr> Shard(DatasetPtr input, int64_t num_shards, int64_t index);

// Shuffles with a buffer of `buffer_size` elements, as tf.data does: an
// output is drawn uniformly from the buffer and replaced by the next input.
// Deterministic for a nonzero seed; reshuffle_each_iteration gives each new
// iterator (epoch) its own order.
absl::StatusOr<DatasetPtr> Shuffle(DatasetPtr input, int64_t buffer_size, uint64_t seed,
                                   bool reshuffle_each_iteration = true);

// Applies `fn` to each element; with num_parallel_calls > 1 up to that
// many elements are mapped at once on worker threads, and the output order
// stays the input order (deterministic).
using MapFn = std::function<absl::StatusOr<Element>(const Element&)>;
absl::StatusOr<DatasetPtr> Map(DatasetPtr input, MapFn fn, int num_parallel_calls = 1);

// Keeps elements for which `predicate` is true.
using Predicate = std::function<absl::StatusOr<bool>(const Element&)>;
absl::StatusOr<DatasetPtr> Filter(DatasetPtr input, Predicate predicate);

// Remembers the elements of the first complete pass in memory and replays
// them afterwards.
absl::StatusOr<DatasetPtr> Cache(DatasetPtr input);

// Produces up to `buffer_size` elements ahead on a background thread.
absl::StatusOr<DatasetPtr> Prefetch(DatasetPtr input, int64_t buffer_size);

}  // namespace data
}  // namespace tfd

#endif  // TFD_CORE_DATA_TRANSFORMS_H_
