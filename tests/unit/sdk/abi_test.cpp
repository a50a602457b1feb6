#include "eventsvc/sdk/abi.hpp"

#include <gtest/gtest.h>

namespace eventsvc::sdk {
namespace {

TEST(Abi, SameVersionIsCompatible) {
  EXPECT_EQ(abi_incompatibility(kAbiVersion, kAbiVersion), "");
}

TEST(Abi, OlderMinorIsCompatibleNewerIsNot) {
  const AbiVersion host{1, 3, kToolchain};
  EXPECT_EQ(abi_incompatibility({1, 2, kToolchain}, host), "");
  const std::string newer = abi_incompatibility({1, 4, kToolchain}, host);
  EXPECT_NE(newer.find("got 1.4"), std::string::npos) << newer;
  EXPECT_NE(newer.find("expected 1.3"), std::string::npos) << newer;
}

TEST(Abi, OtherMajorOrToolchainIsRefusedNamingBoth) {
  const std::string major = abi_incompatibility({2, 0, kToolchain}, {1, 0, kToolchain});
  EXPECT_EQ(major.rfind("ABI version mismatch: got 2.0 (", 0), 0U) << major;
  EXPECT_NE(major.find("but expected 1.0"), std::string::npos) << major;
  const std::string toolchain = abi_incompatibility({1, 0, "libc++16/boost-108100"}, kAbiVersion);
  EXPECT_NE(toolchain.find("libc++16"), std::string::npos) << toolchain;
  EXPECT_NE(toolchain.find(kToolchain), std::string::npos) << toolchain;
}

}  // namespace
}  // namespace eventsvc::sdk
