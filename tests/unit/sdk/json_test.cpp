#include "eventsvc/sdk/json.hpp"

#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "eventsvc/sdk/error.hpp"
#include "eventsvc/sdk/record.hpp"
#include "eventsvc/toolkit/record_json.hpp"

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
  // Objects of many keys are checked as well.
  std::string many = "{";
  for (int i = 0; i < 40; ++i)
    many += "\"key-" + std::to_string(i) + "\": " + std::to_string(i) + ",";
  EXPECT_EQ(parse_json(many + "\"inner\": {\"key-7\": 1}}").get_object().size(), 41U);
  try {
    parse_json(many + "\"key-27\": 1}");
    ADD_FAILURE() << "accepted a repeated key among many";
  } catch (const Error& error) {
    EXPECT_EQ(error.message(),
              "request body is not valid JSON: an object repeats the key \"key-27\"");
  }
}

TEST(JsonSize, IsTheSizeOfTheTextToJsonWrites) {
  for (const char* text : {"null",
                           "true",
                           "false",
                           "0",
                           "-7",
                           "18446744073709551615",
                           "-9223372036854775808",
                           "1.5",
                           "1e21",
                           "1e-7",
                           "0.001",
                           "-0.0",
                           "123456789.125",
                           "\"\"",
                           "\"plain\"",
                           "\"quote \\\" slash \\\\ tab \\t nl \\n ctl \\u0001 \\u001f\"",
                           "\"é 漢 😀\"",
                           "[]",
                           "{}",
                           "[1,[2,[3,{}]],\"x\"]",
                           "{\"a\":{\"b\":[true,null,2.25]},\"k\\\"ey\":\"v\",\"n\":-3}"}) {
    const json::value value = parse_json(text);
    EXPECT_EQ(json_size(value), to_json(value).size()) << text;
    if (value.is_object()) {
      EXPECT_EQ(json_size(value.get_object()), to_json(value).size()) << text;
    }
    if (value.is_string()) {
      EXPECT_EQ(json_size(std::string_view(value.get_string())), to_json(value).size()) << text;
    }
  }
}

TEST(JsonSize, OfARecordIsTheSizeOfItsAnswerText) {
  Record record;
  record.id = "evt-\"1\"";
  record.type = "reading";
  record.stream = "plant";
  record.timestamp = 1795336200000;
  record.ingested_at = 1795336200123;
  record.receipt_id = "rcpt_1";
  record.payload = parse_json(R"({"sensor":"s-01","temp":21.5,"tags":["a","b"]})");
  record.proof_digest = "sha256-jcs:00";
  EXPECT_EQ(toolkit::record_json_size(record), to_json(toolkit::record_to_json(record)).size());
  std::string appended = "before ";
  toolkit::append_record_json(appended, record);
  EXPECT_EQ(appended, "before " + to_json(toolkit::record_to_json(record)));
  record.namespace_name = "ns";
  record.site_id = "site-1";
  record.source_id = "src";
  record.metrics = parse_json(R"({"latency_ms":12})");
  record.attributes["extra"] = "x";
  record.envelope["batch"] = 3;
  record.verification = Verification::verified;
  record.payload = parse_json(R"({"text":"quote \" and \u0001 and é","n":-0.5,"big":1e300})");
  EXPECT_EQ(toolkit::record_json_size(record), to_json(toolkit::record_to_json(record)).size());
  std::string whole;
  toolkit::append_record_json(whole, record);
  EXPECT_EQ(whole, to_json(toolkit::record_to_json(record)));
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
