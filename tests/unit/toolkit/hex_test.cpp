#include "eventsvc/toolkit/hex.hpp"

#include <gtest/gtest.h>

namespace eventsvc::toolkit {
namespace {

TEST(Hex, BytesRoundTripAsLowercaseDigits) {
  const std::string bytes("\x00\x01\x7f\x80\xab\xff", 6);
  EXPECT_EQ(hex_of(bytes), "00017f80abff");
  EXPECT_EQ(bytes_of_hex("00017f80abff"), bytes);
  EXPECT_EQ(hex_of(""), "");
  EXPECT_EQ(bytes_of_hex(""), std::string());
}

TEST(Hex, AnythingButEvenLowercaseHexIsRefused) {
  EXPECT_EQ(bytes_of_hex("abc"), std::nullopt);   // odd
  EXPECT_EQ(bytes_of_hex("AB"), std::nullopt);    // uppercase
  EXPECT_EQ(bytes_of_hex("0g"), std::nullopt);    // not a digit
  EXPECT_EQ(bytes_of_hex("evt-"), std::nullopt);  // an id
}

}  // namespace
}  // namespace eventsvc::toolkit
