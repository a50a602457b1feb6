// The ABI handshake as the loader applies it; the hash itself is the build's (a test in
// tests/integration builds a plugin against an edited header and sees it refused).
#define EVENTSVC_SDK_HEADERS_HASH "0123456789abcdef"
#include "eventsvc/sdk/abi.hpp"

#include <gtest/gtest.h>

#include <string>

namespace eventsvc::sdk {
namespace {

const std::string kOurs = std::string(kToolchain) + "/sdk-0123456789abcdef";
const std::string kOtherHeaders = std::string(kToolchain) + "/sdk-fedcba9876543210";

TEST(Abi, NamesTheToolchainAndTheHeadersHash) {
  const AbiVersion version = EVENTSVC_SDK_ABI_VERSION;
  EXPECT_EQ(version.major, kAbiMajor);
  EXPECT_EQ(version.toolchain, kOurs);
}

TEST(Abi, TheSameHeadersAndToolchainAreCompatible) {
  EXPECT_EQ(abi_incompatibility({5, 0, kOurs.c_str()}, {5, 0, kOurs.c_str()}), "");
}

TEST(Abi, OtherHeadersAreRefusedNamingBoth) {
  const std::string refused =
      abi_incompatibility({5, 0, kOtherHeaders.c_str()}, {5, 0, kOurs.c_str()});
  EXPECT_EQ(refused, "ABI version mismatch: got 5.0 (" + kOtherHeaders + "), but expected 5.0 (" +
                         kOurs + ")");
}

TEST(Abi, AnotherToolchainOrLayoutIsRefused) {
  EXPECT_NE(abi_incompatibility({5, 0, "libc++16/boost-108100/sdk-0123456789abcdef"},
                                {5, 0, kOurs.c_str()}),
            "");
  const std::string older = abi_incompatibility({4, 0, kToolchain}, {5, 0, kOurs.c_str()});
  EXPECT_EQ(older.rfind("ABI version mismatch: got 4.0 (", 0), 0U) << older;
  // A plugin built without the SDK's CMake package has no hash: refused, saying why.
  const std::string unhashed = abi_incompatibility({5, 0, nullptr}, {5, 0, kOurs.c_str()});
  EXPECT_NE(unhashed.find("built without the SDK's CMake package"), std::string::npos) << unhashed;
}

}  // namespace
}  // namespace eventsvc::sdk
