#include "eventsvc/toolkit/digest.hpp"

#include <gtest/gtest.h>

#include <bit>
#include <cstdint>
#include <fstream>

#include "eventsvc/sdk/error.hpp"
#include "support/temp_dir.hpp"

namespace eventsvc::toolkit {
namespace {

using namespace eventsvc::sdk;

std::string canonical_of_bits(std::uint64_t bits) {
  return canonical_json(json::value(std::bit_cast<double>(bits)));
}

// RFC 8785 Appendix B: IEEE 754 bit patterns and their canonical text.
TEST(Jcs, NumbersOfRfc8785AppendixB) {
  const std::pair<std::uint64_t, const char*> cases[] = {
      {0x0000000000000000, "0"},
      {0x8000000000000000, "0"},
      {0x0000000000000001, "5e-324"},
      {0x8000000000000001, "-5e-324"},
      {0x7fefffffffffffff, "1.7976931348623157e+308"},
      {0xffefffffffffffff, "-1.7976931348623157e+308"},
      {0x4340000000000000, "9007199254740992"},
      {0xc340000000000000, "-9007199254740992"},
      {0x4430000000000000, "295147905179352830000"},
      {0x44b52d02c7e14af5, "9.999999999999997e+22"},
      {0x44b52d02c7e14af6, "1e+23"},
      {0x44b52d02c7e14af7, "1.0000000000000001e+23"},
      {0x444b1ae4d6e2ef4e, "999999999999999700000"},
      {0x444b1ae4d6e2ef4f, "999999999999999900000"},
      {0x444b1ae4d6e2ef50, "1e+21"},
      {0x3eb0c6f7a0b5ed8c, "9.999999999999997e-7"},
      {0x3eb0c6f7a0b5ed8d, "0.000001"},
      {0x41b3de4355555553, "333333333.3333332"},
      {0x41b3de4355555554, "333333333.33333325"},
      {0x41b3de4355555555, "333333333.3333333"},
      {0x41b3de4355555556, "333333333.3333334"},
      {0x41b3de4355555557, "333333333.33333343"},
      {0xbecbf647612f3696, "-0.0000033333333333333333"},
      {0x43143ff3c1cb0959, "1424953923781206.2"},
  };
  for (const auto& [bits, expected] : cases) {
    EXPECT_EQ(canonical_of_bits(bits), expected) << std::hex << bits;
  }
}

TEST(Jcs, EdgeNumbersAsParsedFromJson) {
  EXPECT_EQ(canonical_json(parse_json("1e21")), "1e+21");
  EXPECT_EQ(canonical_json(parse_json("1e20")), "100000000000000000000");
  EXPECT_EQ(canonical_json(parse_json("1e-7")), "1e-7");
  EXPECT_EQ(canonical_json(parse_json("1e-6")), "0.000001");
  EXPECT_EQ(canonical_json(parse_json("-0")), "0");
  EXPECT_EQ(canonical_json(parse_json("-0.0")), "0");
  EXPECT_EQ(canonical_json(parse_json("5e-324")), "5e-324");
  EXPECT_EQ(canonical_json(parse_json("4.50")), "4.5");
  EXPECT_EQ(canonical_json(parse_json("2e-3")), "0.002");
  // Integers beyond 2^53 are IEEE doubles in JCS.
  EXPECT_EQ(canonical_json(parse_json("9007199254740993")), "9007199254740992");
  EXPECT_EQ(canonical_json(parse_json("18446744073709551615")), "18446744073709552000");
  EXPECT_EQ(canonical_json(parse_json("-9223372036854775808")), "-9223372036854776000");
  EXPECT_EQ(canonical_json(parse_json("123456789012345678901234567890")), "1.2345678901234568e+29");
}

// RFC 8785 section 3.2.2.
TEST(Jcs, MainExampleOfRfc8785) {
  const auto input = parse_json(R"({
    "numbers": [333333333.33333329, 1E30, 4.50, 2e-3, 0.000000000000000000000000001],
    "string": "\u20ac$\u000F\u000aA'\u0042\u0022\u005c\\\"\/",
    "literals": [null, true, false]
  })");
  EXPECT_EQ(canonical_json(input),
            "{\"literals\":[null,true,false],\"numbers\":[333333333.3333333,1e+30,4.5,0.002,1e-27],"
            "\"string\":\"\xE2\x82\xAC$\\u000f\\nA'B\\\"\\\\\\\\\\\"/\"}");
}

// RFC 8785 section 3.2.3: members sort by UTF-16 code units, not by UTF-8 bytes.
TEST(Jcs, SortsMembersByUtf16CodeUnits) {
  const auto input = parse_json(R"({
    "\u20ac": "Euro Sign",
    "\r": "Carriage Return",
    "\ufb33": "Hebrew Letter Dalet With Dagesh",
    "1": "One",
    "\ud83d\ude00": "Emoji: Grinning Face",
    "\u0080": "Control",
    "\u00f6": "Latin Small Letter O With Diaeresis"
  })");
  EXPECT_EQ(canonical_json(input),
            "{\"\\r\":\"Carriage Return\",\"1\":\"One\",\"\xC2\x80\":\"Control\","
            "\"\xC3\xB6\":\"Latin Small Letter O With Diaeresis\",\"\xE2\x82\xAC\":\"Euro Sign\","
            "\"\xF0\x9F\x98\x80\":\"Emoji: Grinning Face\","
            "\"\xEF\xAC\xB3\":\"Hebrew Letter Dalet With Dagesh\"}");
}

TEST(Jcs, EscapesOnlyWhatJsonRequires) {
  EXPECT_EQ(canonical_json(json::string("\x01\x1f\b\f\n\r\t/\"\\")),
            "\"\\u0001\\u001f\\b\\f\\n\\r\\t/\\\"\\\\\"");
}

TEST(Digest, Sha256OfKnownInputs) {
  EXPECT_EQ(sha256_hex(""), "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855");
  EXPECT_EQ(sha256_hex("abc"), "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad");
}

TEST(Digest, Sha256OfAFileIsThatOfItsBytesAcrossBlocks) {
  testing::TempDir dir;
  const std::string bytes(200000, 'x');  // more than one 64 KiB block
  std::ofstream(dir.path() / "f", std::ios::binary) << bytes;
  std::ofstream(dir.path() / "empty", std::ios::binary).close();
  EXPECT_EQ(sha256_hex_of_file(dir.path() / "f"), sha256_hex(bytes));
  EXPECT_EQ(sha256_hex_of_file(dir.path() / "empty"), sha256_hex(""));
  try {
    sha256_hex_of_file(dir.path() / "missing");
    FAIL() << "a missing file was hashed";
  } catch (const sdk::Error& error) {
    EXPECT_EQ(error.status(), 500);
    EXPECT_EQ(error.message(), "cannot read " + (dir.path() / "missing").string());
  }
}

TEST(Digest, EventDigestIgnoresMemberOrderAndWhitespace) {
  const auto a = parse_json(
      R"({"id":"e1","type":"t","occurred_at":"2026-01-01T00:00:00Z","data":{"x":1,"y":[1.0,2]}})");
  const auto b = parse_json(
      R"({ "data": {"y": [1, 2.0], "x": 1.00}, "occurred_at":"2026-01-01T00:00:00Z", "type":"t", "id":"e1" })");
  EXPECT_EQ(event_digest(a), event_digest(b));
  EXPECT_EQ(event_digest(a), sha256_hex(canonical_json(a)));
}

TEST(Digest, EventSetIsOverDistinctSortedPairs) {
  const std::string expected = sha256_hex("a\nd1\nb\nd2\nb\nd3\n");
  EXPECT_EQ(event_set_sha256({{"b", "d3"}, {"a", "d1"}, {"b", "d2"}, {"a", "d1"}}), expected);
}

TEST(JsonText, KeepsMemberOrderAndPrintsNumbersNaturally) {
  json::object object;
  object["z"] = 1.5;
  object["a"] = 0.001;
  object["m"] = std::int64_t{9007199254740993};
  object["n"] = 1e21;
  EXPECT_EQ(to_json(object), R"({"z":1.5,"a":0.001,"m":9007199254740993,"n":1e+21})");
}

}  // namespace
}  // namespace eventsvc::toolkit
