#include "store/record_text.hpp"

#include <algorithm>
#include <array>
#include <charconv>
#include <cstring>

#include "eventsvc/sdk/json.hpp"
#include "eventsvc/toolkit/time.hpp"
#include "store/stored_formats.hpp"

namespace eventsvc::plugins::rocksdb_storage {

using namespace std::string_view_literals;

namespace {

[[noreturn]] void damaged_record() {
  damaged_value("record");
}

// The end of the string whose opening quote is at `at`. Strings are most of a record's bytes, so
// the closing quote is found with memchr: a quote ends the string unless an odd number of
// backslashes stands before it.
std::size_t string_end(std::string_view text, std::size_t at) {
  const char* const begin = text.data();
  const char* const end = begin + text.size();
  const char* from = begin + at + 1;
  while (from < end) {
    const auto* quote = static_cast<const char*>(std::memchr(from, '"', end - from));
    if (quote == nullptr) break;
    std::size_t backslashes = 0;
    for (const char* before = quote - 1; before > begin + at && *before == '\\'; --before)
      ++backslashes;
    if (backslashes % 2 == 0) return quote - begin + 1;
    from = quote + 1;
  }
  damaged_record();
}

// The bytes that matter to the structure of compact JSON outside strings.
constexpr std::array<bool, 256> kStructural = [] {
  std::array<bool, 256> table{};
  for (const unsigned char c : std::string_view("\"{}[]"))
    table[c] = true;
  return table;
}();

// The end of the value that starts at `at`. The text is the compact JSON the writer made (no
// white space), so a scalar ends at the next separator.
std::size_t value_end(std::string_view text, std::size_t at) {
  if (at >= text.size()) damaged_record();
  const char first = text[at];
  if (first == '"') return string_end(text, at);
  if (first != '{' && first != '[') {
    std::size_t i = at;
    while (i < text.size() && text[i] != ',' && text[i] != '}' && text[i] != ']')
      ++i;
    return i;
  }
  std::size_t depth = 0;
  for (std::size_t i = at; i < text.size(); ++i) {
    const char c = text[i];
    if (!kStructural[static_cast<unsigned char>(c)]) continue;
    if (c == '"') {
      i = string_end(text, i) - 1;
    } else if (c == '{' || c == '[') {
      ++depth;
    } else if (--depth == 0) {
      return i + 1;
    }
  }
  damaged_record();
}

// The end of a payload whose length the record gives (most of a record's bytes, not crossed):
// a member must follow it, or the record's end.
std::size_t payload_end(std::string_view text, std::size_t at, std::size_t size) {
  if (size == 0 || size >= text.size() - at || (text[at + size] != ',' && text[at + size] != '}'))
    damaged_record();
  return at + size;
}

sdk::Millis instant_of(std::string_view text) {
  sdk::Millis instant = 0;
  const auto result = std::from_chars(text.data(), text.data() + text.size(), instant);
  if (result.ec != std::errc() || result.ptr != text.data() + text.size()) damaged_record();
  return instant;
}

// Where a stored member's value goes (stored_formats.cpp's encode_record names them). Keys are
// told apart by length first, then compared with the at most three names of that length: this
// runs for every member of every record an export splices.
std::string_view* slot_of(StoredRecordText& record, std::string_view key,
                          std::string_view& timestamp, std::string_view& ingested_at) {
  // The length is the switch's: a comparison of that many bytes the compiler makes inline.
  auto is = [key]<std::size_t N>(const char(&name)[N]) {
    return std::memcmp(key.data(), name, N - 1) == 0;
  };
  switch (key.size()) {
    case 2:
      if (is("id")) return &record.id;
      if (is("ns")) return &record.namespace_name;
      if (is("ts")) return &timestamp;
      break;
    case 3:
      if (is("src")) return &record.source_id;
      if (is("ing")) return &ingested_at;
      if (is("env")) return &record.envelope;
      break;
    case 4:
      if (is("type")) return &record.type;
      if (is("site")) return &record.site_id;
      if (is("rcpt")) return &record.receipt_id;
      break;
    case 5:
      if (is("attrs")) return &record.attributes;
      break;
    case 6:
      if (is("stream")) return &record.stream;
      break;
    case 7:
      if (is("payload")) return &record.payload;
      if (is("metrics")) return &record.metrics;
      break;
    default:
      break;
  }
  return nullptr;  // "seq": not answered
}

void append_member(std::string& out, std::string_view key, std::string_view json) {
  out.push_back(',');
  out.push_back('"');
  out += key;
  out += "\":"sv;
  out += json;
}

void append_instant(std::string& out, std::string_view key, sdk::Millis instant) {
  out.push_back(',');
  out.push_back('"');
  out += key;
  out += "\":\""sv;
  // Digits, dashes, colons, a dot and letters: nothing JSON escapes.
  toolkit::append_rfc3339(out, instant);
  out.push_back('"');
}

}  // namespace

StoredRecordText read_record_text(std::string_view value) {
  StoredRecordText record;
  const StoredRecordParts parts = stored_record_parts(value);
  record.digest = parts.digest;
  const std::string_view text = parts.json;
  if (text.size() < 2 || text.front() != '{') damaged_record();
  std::string_view timestamp;
  std::string_view ingested_at;
  std::size_t at = 1;
  while (at < text.size() && text[at] != '}') {
    if (text[at] == ',') ++at;
    if (at >= text.size() || text[at] != '"') damaged_record();
    const std::size_t key_end = string_end(text, at);
    if (key_end >= text.size() || text[key_end] != ':') damaged_record();
    const std::string_view key = text.substr(at + 1, key_end - at - 2);
    const std::size_t end = key == "payload" && parts.payload_size
                                ? payload_end(text, key_end + 1, *parts.payload_size)
                                : value_end(text, key_end + 1);
    if (auto* slot = slot_of(record, key, timestamp, ingested_at))
      *slot = text.substr(key_end + 1, end - key_end - 1);
    at = end;
  }
  if (at + 1 != text.size() || record.id.empty() || record.type.empty() || record.stream.empty() ||
      record.receipt_id.empty() || record.payload.empty() || timestamp.empty() ||
      ingested_at.empty()) {
    damaged_record();
  }
  record.timestamp = instant_of(timestamp);
  record.ingested_at = instant_of(ingested_at);
  return record;
}

sdk::Record decode_record_fields(std::string_view value,
                                 const std::vector<sdk::FieldPath>& fields) {
  if (fields.empty()) return decode_record(value);
  auto names = [&fields](sdk::FieldPath::Root root) {
    return std::any_of(fields.begin(), fields.end(),
                       [root](const sdk::FieldPath& field) { return field.root == root; });
  };
  auto optional = [](std::string_view text) -> std::optional<std::string> {
    if (text.empty() || text.front() != '"') return std::nullopt;
    return json_string_value(text);
  };
  const StoredRecordText text = read_record_text(value);
  sdk::Record record;
  record.proof_digest = std::string(text.digest);
  record.id = json_string_value(text.id);
  record.type = json_string_value(text.type);
  record.stream = json_string_value(text.stream);
  record.namespace_name = optional(text.namespace_name);
  record.site_id = optional(text.site_id);
  record.source_id = optional(text.source_id);
  record.timestamp = text.timestamp;
  record.ingested_at = text.ingested_at;
  record.receipt_id = json_string_value(text.receipt_id);
  if (names(sdk::FieldPath::Root::payload)) record.payload = sdk::parse_json(text.payload);
  if (names(sdk::FieldPath::Root::metrics) && !text.metrics.empty()) {
    record.metrics = sdk::parse_json(text.metrics);
  }
  return record;
}

std::string json_string_value(std::string_view text) {
  if (text.size() < 2 || text.front() != '"' || text.back() != '"') damaged_record();
  if (text.find('\\') == std::string_view::npos)
    return std::string(text.substr(1, text.size() - 2));
  const sdk::json::value value = sdk::parse_json(text, 1);
  if (!value.is_string()) damaged_record();
  return std::string(value.get_string());
}

void append_record_answer_json(std::string& out, const StoredRecordText& record,
                               sdk::Verification verification) {
  out += R"({"id":)"sv;
  out += record.id;
  append_member(out, "type", record.type);
  append_member(out, "stream", record.stream);
  if (!record.namespace_name.empty()) append_member(out, "namespace", record.namespace_name);
  if (!record.site_id.empty()) append_member(out, "site_id", record.site_id);
  if (!record.source_id.empty()) append_member(out, "source_id", record.source_id);
  append_instant(out, "timestamp", record.timestamp);
  append_instant(out, "ingested_at", record.ingested_at);
  append_member(out, "receipt_id", record.receipt_id);
  append_member(out, "payload", record.payload);
  if (!record.metrics.empty()) append_member(out, "metrics", record.metrics);
  append_member(out, "attributes", record.attributes.empty() ? "{}" : record.attributes);
  if (!record.envelope.empty()) append_member(out, "envelope", record.envelope);
  out += R"(,"proof_digest":")"sv;
  out += record.digest;
  out += R"(","verification":")"sv;
  out += sdk::verification_name(verification);
  out += "\"}"sv;
}

}  // namespace eventsvc::plugins::rocksdb_storage
