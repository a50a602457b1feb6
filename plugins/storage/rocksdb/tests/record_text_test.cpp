#include "store/record_text.hpp"

#include <gtest/gtest.h>

#include <cmath>
#include <random>

#include "eventsvc/sdk/error.hpp"
#include "eventsvc/toolkit/record_json.hpp"
#include "store/stored_formats.hpp"

namespace eventsvc::plugins::rocksdb_storage {
namespace {

namespace json = sdk::json;

// What a read that decodes the record answers: the definition spliced answers must equal.
std::string decoded_answer(const std::string& stored, sdk::Verification verification) {
  sdk::Record record = decode_record(stored);
  record.verification = verification;
  std::string out;
  toolkit::append_record_json(out, record);
  return out;
}

std::string spliced_answer(const std::string& stored, sdk::Verification verification) {
  std::string out;
  append_record_answer_json(out, read_record_text(stored), verification);
  return out;
}

sdk::Record base_record() {
  sdk::Record record;
  record.id = "evt-1";
  record.type = "order.created";
  record.stream = "orders";
  record.timestamp = 1795336200123;
  record.ingested_at = 1795336201456;
  record.receipt_id = "rcpt_0123456789abcdef";
  record.sequence = 42;
  record.payload = json::object{{"amount", 12.5}, {"sku", "A-1"}};
  record.proof_digest = std::string(64, 'a');
  return record;
}

TEST(RecordText, SplicesTheAnswerADecodedRecordGives) {
  sdk::Record record = base_record();
  for (const auto verification : {sdk::Verification::pending, sdk::Verification::verified}) {
    const std::string stored = encode_record(record);
    EXPECT_EQ(spliced_answer(stored, verification), decoded_answer(stored, verification));
  }
}

// A reader naming fields gets the canonical members as a whole decode gives them, and the payload
// and metrics only when a field names them.
TEST(RecordText, DecodesOnlyWhatTheFieldsName) {
  sdk::Record record = base_record();
  record.id = "id \"q\" \\ 雪";
  record.namespace_name = "ns-1";
  record.source_id = "src/1";
  record.metrics = json::object{{"latency_ms", 7}};
  record.attributes = json::object{{"tag", "x"}};
  const std::string stored = encode_record(record);
  auto fields = [](std::initializer_list<const char*> names) {
    std::vector<sdk::FieldPath> out;
    for (const char* name : names)
      out.push_back(*sdk::FieldPath::parse(name));
    return out;
  };
  const sdk::Record whole = decode_record(stored);
  const sdk::Record ids = decode_record_fields(stored, fields({"id", "timestamp"}));
  EXPECT_EQ(ids.id, whole.id);
  EXPECT_EQ(ids.type, whole.type);
  EXPECT_EQ(ids.stream, whole.stream);
  EXPECT_EQ(ids.namespace_name, whole.namespace_name);
  EXPECT_EQ(ids.site_id, std::nullopt);
  EXPECT_EQ(ids.source_id, whole.source_id);
  EXPECT_EQ(ids.timestamp, whole.timestamp);
  EXPECT_EQ(ids.ingested_at, whole.ingested_at);
  EXPECT_EQ(ids.receipt_id, whole.receipt_id);
  EXPECT_EQ(ids.proof_digest, whole.proof_digest);
  EXPECT_TRUE(ids.payload.is_null());
  EXPECT_TRUE(ids.metrics.is_null());
  EXPECT_TRUE(ids.attributes.empty());

  const sdk::Record payload = decode_record_fields(stored, fields({"payload.sku"}));
  EXPECT_EQ(payload.payload, whole.payload);
  EXPECT_TRUE(payload.metrics.is_null());
  const sdk::Record metrics = decode_record_fields(stored, fields({"metrics.latency_ms"}));
  EXPECT_TRUE(metrics.payload.is_null());
  EXPECT_EQ(metrics.metrics, whole.metrics);

  const sdk::Record all = decode_record_fields(stored, {});
  EXPECT_EQ(all.attributes, whole.attributes);
  EXPECT_EQ(all.sequence, whole.sequence);
}

TEST(RecordText, EveryOptionalMemberAndAwkwardText) {
  sdk::Record record = base_record();
  record.id = "quote \" back\\slash \n tab\t ctrl\x01 é 雪 🙂";
  record.namespace_name = "ns \"q\"";
  record.site_id = "site-9";
  record.source_id = "src/1";
  record.timestamp = -86400001;  // before 1970, with milliseconds
  record.metrics = json::object{{"temp", -0.0}, {"big", 1e300}, {"tiny", 5e-324}};
  record.attributes = json::object{{"tags", json::array{"a", nullptr, true, 3}}};
  record.envelope = json::object{{"batch", json::object{{"n", 18446744073709551615ULL}}}};
  // Strings that end in backslashes (escaped, so the quote after them closes the string) and
  // escaped quotes after escaped backslashes.
  record.payload = json::array{json::object{{"k]", "v}"}, {"trail\\", "\\\\"}},
                               json::array{},
                               json::object{},
                               "[{",
                               "\\\"\\",
                               "\"}]"};
  const std::string stored = encode_record(record);
  EXPECT_EQ(spliced_answer(stored, sdk::Verification::verified),
            decoded_answer(stored, sdk::Verification::verified));
  const StoredRecordText text = read_record_text(stored);
  EXPECT_EQ(json_string_value(text.id), record.id);
  EXPECT_EQ(json_string_value(text.receipt_id), record.receipt_id);
  EXPECT_EQ(text.timestamp, record.timestamp);
  EXPECT_EQ(text.ingested_at, record.ingested_at);
}

// Random payloads of every JSON type, numbers of every magnitude: the writer writes a parsed value
// back as the text it was parsed from, which splicing stands on.
json::value random_value(std::mt19937_64& random, int depth) {
  std::uniform_int_distribution<int> kind(0, depth > 3 ? 5 : 7);
  switch (kind(random)) {
    case 0:
      return nullptr;
    case 1:
      return random() % 2 == 0;
    case 2:
      return static_cast<std::int64_t>(random());
    case 3:
      return random();
    case 4: {
      std::uniform_real_distribution<double> exponent(-300, 300);
      return std::pow(10.0, exponent(random)) * (random() % 2 == 0 ? 1 : -1);
    }
    case 5: {
      std::string text;
      const std::size_t length = random() % 12;
      for (std::size_t i = 0; i < length; ++i)
        text.push_back(static_cast<char>(random() % 0x7f + 1));
      return json::string(text);
    }
    case 6: {
      json::array array;
      for (std::size_t i = random() % 4; i > 0; --i)
        array.push_back(random_value(random, depth + 1));
      return array;
    }
    default: {
      json::object object;
      for (std::size_t i = random() % 4; i > 0; --i)
        object["k" + std::to_string(i) + "\"}"] = random_value(random, depth + 1);
      return object;
    }
  }
}

TEST(RecordText, RandomRecordsSpliceAsTheyDecode) {
  std::mt19937_64 random(11);
  for (int i = 0; i < 2000; ++i) {
    sdk::Record record = base_record();
    record.id = "evt-" + std::to_string(random());
    record.payload = random_value(random, 0);
    if (random() % 2 == 0) record.metrics = json::object{{"m", random_value(random, 2)}};
    if (random() % 3 == 0) record.attributes["a"] = random_value(random, 2);
    if (random() % 3 == 0) record.envelope["e"] = random_value(random, 2);
    if (random() % 2 == 0) record.namespace_name = "n" + std::to_string(i);
    const std::string stored = encode_record(record);
    ASSERT_EQ(spliced_answer(stored, sdk::Verification::pending),
              decoded_answer(stored, sdk::Verification::pending))
        << stored;
  }
}

// What earlier versions stored (format 1): no payload length; the payload is found by its
// structure.
std::string first_format(const std::string& stored) {
  std::string first = stored;
  first[0] = 1;
  first.erase(1 + 64, 4);
  return first;
}

TEST(RecordText, RecordsOfTheFirstFormatReadAsTheyDid) {
  sdk::Record record = base_record();
  record.payload = json::object{{"nested", json::array{json::object{{"k", "v}]\""}}}}};
  record.attributes = json::object{{"a", 1}};
  const std::string stored = encode_record(record);
  const std::string first = first_format(stored);
  EXPECT_EQ(spliced_answer(first, sdk::Verification::verified),
            spliced_answer(stored, sdk::Verification::verified));
  EXPECT_EQ(decoded_answer(first, sdk::Verification::verified),
            decoded_answer(stored, sdk::Verification::verified));
  EXPECT_EQ(record_digest(first), record_digest(stored));
  // The payload's length is what the JSON holds.
  const StoredRecordParts parts = stored_record_parts(stored);
  ASSERT_TRUE(parts.payload_size);
  EXPECT_EQ(*parts.payload_size, sdk::to_json(record.payload).size());
  EXPECT_FALSE(stored_record_parts(first).payload_size);
}

TEST(RecordText, APayloadLengthThatDoesNotFitIsRefused) {
  const std::string stored = encode_record(base_record());
  const std::size_t size = *stored_record_parts(stored).payload_size;
  for (const std::size_t wrong : {std::size_t{0}, size - 1, size + 1, std::size_t{1} << 30}) {
    std::string damaged = stored;
    for (int i = 0; i < 4; ++i)
      damaged[1 + 64 + i] = static_cast<char>((wrong >> (8 * (3 - i))) & 0xFFU);
    EXPECT_THROW(read_record_text(damaged), sdk::Error) << wrong;
  }
}

TEST(RecordText, DamagedValuesAreRefused) {
  const std::string stored = encode_record(base_record());
  for (const std::size_t cut :
       {std::size_t{0}, std::size_t{10}, std::size_t{66}, stored.size() / 2, stored.size() - 1}) {
    EXPECT_THROW(read_record_text(stored.substr(0, cut)), sdk::Error) << cut;
  }
}

}  // namespace
}  // namespace eventsvc::plugins::rocksdb_storage
