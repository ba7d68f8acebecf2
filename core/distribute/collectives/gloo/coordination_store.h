// A Gloo rendezvous store backed by the coordination service's key-value
// store: Gloo ranks publish their TCP addresses through it when a context
// connects (gloo_context.h).
//
// Keys are put under `prefix` so that several Gloo contexts of one job
// (one per group, one per restart) do not see each other's keys. Every
// wait is bounded by the store's timeout. Gloo's Store interface can only
// fail by throwing, so a failure throws gloo::IoException -- caught by the
// TFD_GLOO_CALL around the Gloo call -- and is kept as a Status in
// error(), which callers prefer because it names the key and the cause.
//
// Thread safety: as the CoordinationClient; the error is guarded.
#ifndef TFD_CORE_DISTRIBUTE_COLLECTIVES_GLOO_COORDINATION_STORE_H_
#define TFD_CORE_DISTRIBUTE_COLLECTIVES_GLOO_COORDINATION_STORE_H_

#include <chrono>
#include <string>
#include <vector>

#include "absl/status/status.h"
#include "absl/synchronization/mutex.h"
#include "absl/time/time.h"
#include "core/distribute/coordination/coordination_client.h"
#include "gloo/rendezvous/store.h"

namespace tfd {
namespace distribute {

class CoordinationStore : public gloo::rendezvous::Store {
 public:
  // `client` must outlive the store.
  CoordinationStore(coordination::CoordinationClient* client, std::string prefix,
                    absl::Duration timeout)
      : client_(client), prefix_(std::move(prefix)), timeout_(timeout) {}

  void set(const std::string& key, const std::vector<char>& data) override;
  std::vector<char> get(const std::string& key) override;
  void wait(const std::vector<std::string>& keys) override;
  void wait(const std::vector<std::string>& keys,
            const std::chrono::milliseconds& timeout) override;

  // The first failure of a store call (OK if none).
  absl::Status error() const;

 private:
  // Records `status` and throws it as a gloo::IoException.
  [[noreturn]] void Fail(absl::Status status);

  coordination::CoordinationClient* const client_;
  const std::string prefix_;
  const absl::Duration timeout_;
  mutable absl::Mutex mu_;
  absl::Status error_ ABSL_GUARDED_BY(mu_);
};

}  // namespace distribute
}  // namespace tfd

#endif  // TFD_CORE_DISTRIBUTE_COLLECTIVES_GLOO_COORDINATION_STORE_H_
