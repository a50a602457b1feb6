#include "eventsvc/sdk/json.hpp"

#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "eventsvc/sdk/error.hpp"

namespace eventsvc::sdk {
namespace {

TEST(ParseJson, RejectsWhatIsNotStrictJson) {
  for (const char* bad :
       {"", "{", "{\"a\":1,}", "// c\n{}", "{} x", "[1,]", "nul", "\"\xff\"", "{'a':1}", "01"}) {
    try {
      parse_json(bad);
      ADD_FAILURE() << "accepted: " << bad;
    } catch (const Error& error) {
      EXPECT_EQ(error.status(), 400);
      EXPECT_TRUE(error.data().contains("line"));
    }
  }
  EXPECT_NO_THROW(parse_json(" {\"a\": [1, 2]}\n "));
}

TEST(ParseJson, BoundsNesting) {
  const std::string deep = std::string(65, '[') + std::string(65, ']');
  try {
    parse_json(deep);
    FAIL();
  } catch (const Error& error) {
    EXPECT_EQ(error.status(), 400);
    EXPECT_NE(error.message().find("deeper than 64"), std::string::npos);
  }
  EXPECT_NO_THROW(parse_json(std::string(64, '[') + std::string(64, ']')));
}

TEST(ParseJson, RefusesAnObjectRepeatingAKeyNamingIt) {
  for (const auto& [text, key] : std::vector<std::pair<std::string, std::string>>{
           {R"({"a": 1, "a": 2})", "a"},
           {R"({"x": {"b": 1, "c": 2, "b": 3}})", "b"},
           {R"([{"ok": 1}, {"long key with \"escapes\"": 1, "long key with \"escapes\"": 1}])",
            "long key with \"escapes\""}}) {
    try {
      parse_json(text);
      ADD_FAILURE() << "accepted: " << text;
    } catch (const Error& error) {
      EXPECT_EQ(error.status(), 400);
      EXPECT_EQ(error.message(),
                "request body is not valid JSON: an object repeats the key \"" + key + "\"");
    }
  }
  // The same key in different objects is no repetition.
  EXPECT_NO_THROW(parse_json(R"({"a": {"a": 1}, "b": [{"a": 1}, {"a": 2}]})"));
}

TEST(JsonPointer, EscapesTokens) {
  EXPECT_EQ(pointer_append("/events", 3), "/events/3");
  EXPECT_EQ(pointer_append("", "a/b~c"), "/a~1b~0c");
}

TEST(JsonEqual, ComparesNumbersByValue) {
  EXPECT_TRUE(json_equal(json::value(1), json::value(1.0)));
  EXPECT_TRUE(json_equal(json::value(std::uint64_t{5}), json::value(std::int64_t{5})));
  EXPECT_FALSE(json_equal(json::value(1), json::value("1")));
  EXPECT_TRUE(json_equal(parse_json(R"({"a":[1,2.0]})"), parse_json(R"({"a":[1.0,2]})")));
  EXPECT_FALSE(json_equal(parse_json(R"({"a":1})"), parse_json(R"({"a":1,"b":2})")));
  EXPECT_EQ(compare_numbers(json::value(-1), json::value(std::uint64_t{1} << 63)), -1);
  EXPECT_EQ(compare_numbers(json::value(std::int64_t{9007199254740993}),
                            json::value(std::int64_t{9007199254740992})),
            1);
}

TEST(Utf8Length, CountsCodePoints) {
  EXPECT_EQ(utf8_length("abc"), 3U);
  EXPECT_EQ(utf8_length("\xE2\x82\xAC"), 1U);
  EXPECT_EQ(utf8_length("\xF0\x9F\x98\x80x"), 2U);
}

}  // namespace
}  // namespace eventsvc::sdk
