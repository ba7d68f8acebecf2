// Links every wrapped system library that no tfd code uses yet and calls
// into it, so a broken wrapper in third_party/ fails here, not in the
// first feature that needs it.
#include <jni.h>

#include <memory>

#include "gloo/rendezvous/hash_store.h"
#include "grpcpp/grpcpp.h"
#include "gtest/gtest.h"

namespace tfd {
namespace {

TEST(SystemLibrariesTest, GlooStoreRoundTrips) {
  gloo::rendezvous::HashStore store;
  store.set("key", std::vector<char>{'v', '1'});
  EXPECT_EQ(store.get("key"), std::vector<char>({'v', '1'}));
}

TEST(SystemLibrariesTest, GrpcBuildsAnInsecureChannel) {
  std::shared_ptr<grpc::Channel> channel =
      grpc::CreateChannel("127.0.0.1:1", grpc::InsecureChannelCredentials());
  ASSERT_NE(channel, nullptr);
  EXPECT_NE(grpc::Version(), "");
}

TEST(SystemLibrariesTest, JniHeadersDeclareTheVersion) {
  EXPECT_GE(JNI_VERSION_1_8, JNI_VERSION_1_6);
}

}  // namespace
}  // namespace tfd
