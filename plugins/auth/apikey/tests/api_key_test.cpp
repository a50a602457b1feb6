#include "api_key.hpp"

#include <gtest/gtest.h>

#include <set>

namespace eventsvc::plugins::apikey {
namespace {

TEST(ApiKey, GeneratedKeysHaveTheDocumentedShape) {
  const std::string key = generate_api_key("key", sdk::Environment::live);
  ASSERT_EQ(key.size(), 4 + 5 + kSecretLength);
  EXPECT_EQ(key.substr(0, 9), "key_live_");
  const auto parsed = parse_api_key(key);
  ASSERT_TRUE(parsed);
  EXPECT_EQ(parsed->word, "key");
  EXPECT_EQ(parsed->environment, sdk::Environment::live);
  EXPECT_EQ(parsed->id(), key.substr(9, 8));
}

TEST(ApiKey, SecretsDoNotRepeat) {
  std::set<std::string> keys;
  for (int i = 0; i < 1000; ++i)
    keys.insert(generate_api_key("key", sdk::Environment::test));
  EXPECT_EQ(keys.size(), 1000U);
}

TEST(ApiKey, RejectsMalformedText) {
  EXPECT_FALSE(parse_api_key(""));
  EXPECT_FALSE(parse_api_key("key_live_"));
  EXPECT_FALSE(parse_api_key("key_prod_0123456789abcdefABCDEF0123456789"));
  EXPECT_FALSE(parse_api_key("key_live_0123456789abcdefABCDEF012345678"));    // 31 chars
  EXPECT_FALSE(parse_api_key("key_live_0123456789abcdefABCDEF01234567890"));  // 33 chars
  EXPECT_FALSE(parse_api_key("key_live_0123456789abcdefABCDEF01234567-9"));
  EXPECT_FALSE(parse_api_key("Key_live_0123456789abcdefABCDEF0123456789"));
  EXPECT_TRUE(parse_api_key("key_test_0123456789abcdefABCDEF0123456789"));
}

TEST(ApiKey, KeyWords) {
  EXPECT_TRUE(valid_key_word("key"));
  EXPECT_TRUE(valid_key_word("acme2"));
  EXPECT_FALSE(valid_key_word(""));
  EXPECT_FALSE(valid_key_word("2key"));
  EXPECT_FALSE(valid_key_word("my_key"));
  EXPECT_FALSE(valid_key_word("abcdefghijklmnopq"));
}

}  // namespace
}  // namespace eventsvc::plugins::apikey
