#include "core/distribute/collectives/nccl/nccl_version.h"

#include "gtest/gtest.h"

namespace tfd {
namespace distribute {
namespace {

TEST(NcclVersionTest, DecodesBothEncodings) {
  const NcclVersion v = DecodeNcclVersion(22809);
  EXPECT_EQ(v.major, 2);
  EXPECT_EQ(v.minor, 28);
  EXPECT_EQ(v.patch, 9);
  EXPECT_EQ(NcclVersionString(22809), "2.28.9");
  EXPECT_EQ(NcclVersionString(20900), "2.9.0");
  // Up to 2.8 NCCL used X*1000 + Y*100 + Z.
  EXPECT_EQ(NcclVersionString(2708), "2.7.8");
  EXPECT_EQ(NcclVersionString(2804), "2.8.4");
}

TEST(NcclVersionTest, OrdersAcrossEncodings) {
  EXPECT_TRUE(NcclVersionLess(2804, 20900));
  EXPECT_FALSE(NcclVersionLess(20900, 2804));
  EXPECT_TRUE(NcclVersionLess(22703, 22800));
  EXPECT_TRUE(NcclVersionLess(22800, 22801));
  EXPECT_FALSE(NcclVersionLess(22800, 22800));
  EXPECT_TRUE(NcclVersionLess(22899, 22900));
  EXPECT_TRUE(NcclVersionLess(22999, 30000));
}

TEST(NcclVersionTest, AcceptsTheRequiredVersionAndNewer) {
  EXPECT_TRUE(CheckNcclLibraryVersion(22800, 22800, 22809).ok());
  EXPECT_TRUE(CheckNcclLibraryVersion(22809, 22800, 22809).ok());
  EXPECT_TRUE(CheckNcclLibraryVersion(22903, 22800, 22809).ok());
  EXPECT_TRUE(CheckNcclLibraryVersion(30001, 22800, 22809).ok());
}

TEST(NcclVersionTest, RefusesAnOlderLibraryNamingBothVersions) {
  const absl::Status s = CheckNcclLibraryVersion(22703, 22800, 22809);
  EXPECT_EQ(s.code(), absl::StatusCode::kFailedPrecondition);
  EXPECT_NE(s.message().find("loaded library is NCCL 2.27.3"), std::string::npos) << s;
  EXPECT_NE(s.message().find("NCCL 2.28.9 headers"), std::string::npos) << s;
  EXPECT_NE(s.message().find("needs NCCL 2.28.0 or newer"), std::string::npos) << s;
  // The old encoding is older than any new one.
  EXPECT_EQ(CheckNcclLibraryVersion(2804, 22800, 22809).code(),
            absl::StatusCode::kFailedPrecondition);
}

TEST(NcclVersionTest, RejectsACodeThatIsNoVersion) {
  EXPECT_EQ(CheckNcclLibraryVersion(0, 22800, 22809).code(), absl::StatusCode::kInternal);
  EXPECT_EQ(CheckNcclLibraryVersion(-1, 22800, 22809).code(), absl::StatusCode::kInternal);
}

}  // namespace
}  // namespace distribute
}  // namespace tfd
