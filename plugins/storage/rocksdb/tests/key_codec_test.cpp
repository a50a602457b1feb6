#include "store/key_codec.hpp"

#include <gtest/gtest.h>

#include <random>

using namespace std::string_view_literals;

namespace eventsvc::plugins::rocksdb_storage {
namespace {

TEST(KeyCodec, FourByteNumbersAreBigEndianAndReadBack) {
  for (const std::uint32_t value : {0U, 1U, 0x01020304U, 0x80000000U, UINT32_MAX}) {
    std::string bytes = "x";
    append_u32(bytes, value);
    ASSERT_EQ(bytes.size(), 5U);
    EXPECT_EQ(static_cast<unsigned char>(bytes[1]), value >> 24U) << value;
    EXPECT_EQ(static_cast<unsigned char>(bytes[4]), value & 0xFFU) << value;
    EXPECT_EQ(read_u32(std::string_view(bytes).substr(1)), value);
  }
}

TEST(KeyCodec, InstantsSortByTime) {
  const sdk::Millis values[] = {INT64_MIN, -86400000, -1, 0, 1, 1795336200000, INT64_MAX};
  for (std::size_t i = 0; i + 1 < std::size(values); ++i) {
    std::string a, b;
    append_instant(a, values[i]);
    append_instant(b, values[i + 1]);
    EXPECT_LT(a, b) << values[i];
    EXPECT_EQ(read_instant(a), values[i]);
  }
}

TEST(KeyCodec, NumbersSortByValue) {
  std::mt19937_64 random(7);
  std::uniform_real_distribution<double> uniform(-1e6, 1e6);
  std::vector<double> numbers = {-1e300, -5.5, -0.0, 0.0, 1e-300, 2.5, 3, 1e300};
  for (int i = 0; i < 500; ++i)
    numbers.push_back(uniform(random));
  for (const double a : numbers) {
    for (const double b : {numbers[0], numbers[3], numbers[5], numbers[12], numbers[40]}) {
      const std::string ea = encode_number(a);
      const std::string eb = encode_number(b);
      if (a < b) {
        EXPECT_LT(ea, eb) << a << " " << b;
      } else if (a == b) {
        EXPECT_EQ(ea, eb) << a << " " << b;
      } else {
        EXPECT_GT(ea, eb) << a << " " << b;
      }
    }
    EXPECT_EQ(decode_number(encode_number(a)), a == 0 ? 0.0 : a);
  }
}

TEST(KeyCodec, StringsSortBytewiseAndPrefixesStayContiguous) {
  EXPECT_LT(encode_string("a"), encode_string("a\0"sv));
  EXPECT_LT(encode_string("a\0"sv), encode_string("ab"));
  EXPECT_LT(encode_string("ab"), encode_string("b"));
  EXPECT_LT(encode_string(""), encode_string("a"));
  const std::string prefix = encode_string_prefix("ab");
  for (const char* text : {"ab", "abc", "ab\xff"}) {
    EXPECT_EQ(encode_string(text).compare(0, prefix.size(), prefix), 0) << text;
  }
  EXPECT_NE(encode_string("a").compare(0, prefix.size(), prefix), 0);
}

TEST(KeyCodec, TypesOrderAndScalarsOnly) {
  const auto null = *encode_value(sdk::json::value(nullptr));
  const auto no = *encode_value(sdk::json::value(false));
  const auto yes = *encode_value(sdk::json::value(true));
  const auto number = *encode_value(sdk::json::value(-1e300));
  const auto text = *encode_value(sdk::json::value(""));
  EXPECT_LT(null, no);
  EXPECT_LT(no, yes);
  EXPECT_LT(yes, number);
  EXPECT_LT(number, text);
  EXPECT_EQ(*encode_value(sdk::json::value(1)), *encode_value(sdk::json::value(1.0)));
  EXPECT_FALSE(encode_value(sdk::json::array{}));
  EXPECT_FALSE(encode_value(sdk::json::object{}));
}

TEST(KeyCodec, LengthPrefixedStringsRoundTrip) {
  std::string key;
  append_string(key, std::string(300, 'x'));
  append_string(key, "id");
  std::string_view rest = key;
  EXPECT_EQ(take_string(rest)->size(), 300U);
  EXPECT_EQ(*take_string(rest), "id");
  EXPECT_TRUE(rest.empty());
  EXPECT_FALSE(take_string(rest));
}

TEST(KeyCodec, TenantsAreDistinctPrefixes) {
  const auto a = tenant_prefix({"ab", sdk::Environment::live});
  const auto b = tenant_prefix({"ab", sdk::Environment::test});
  const auto c = tenant_prefix({"abL", sdk::Environment::live});
  EXPECT_NE(a, b);
  EXPECT_NE(c.compare(0, a.size(), a), 0);  // no tenant's prefix starts another's
  EXPECT_EQ(prefix_successor("a\xff"), "b");
}

}  // namespace
}  // namespace eventsvc::plugins::rocksdb_storage
