#include "eventsvc/toolkit/record_json.hpp"

#include "eventsvc/toolkit/time.hpp"

namespace eventsvc::toolkit {

namespace {

// Calls member(key, value) for each member of the record as answers show it, in order; value is
// a std::string_view, a json::value or a json::object.
template <class Member>
void for_each_member(const Record& record, Member&& member) {
  member("id", std::string_view(record.id));
  member("type", std::string_view(record.type));
  member("stream", std::string_view(record.stream));
  if (record.namespace_name) member("namespace", std::string_view(*record.namespace_name));
  if (record.site_id) member("site_id", std::string_view(*record.site_id));
  if (record.source_id) member("source_id", std::string_view(*record.source_id));
  member("timestamp", std::string_view(format_rfc3339(record.timestamp)));
  member("ingested_at", std::string_view(format_rfc3339(record.ingested_at)));
  member("receipt_id", std::string_view(record.receipt_id));
  member("payload", record.payload);
  if (record.metrics.is_object()) member("metrics", record.metrics);
  member("attributes", record.attributes);
  if (!record.envelope.empty()) member("envelope", record.envelope);
  member("proof_digest", std::string_view(record.proof_digest));
  member("verification", verification_name(record.verification));
}

}  // namespace

json::object record_to_json(const Record& record) {
  json::object out;
  out.reserve(16);
  for_each_member(record, [&](std::string_view key, const auto& value) { out[key] = value; });
  return out;
}

void append_record_json(std::string& out, const Record& record) {
  char separator = '{';
  for_each_member(record, [&](std::string_view key, const auto& value) {
    out.push_back(separator);
    separator = ',';
    sdk::append_json(out, key);
    out.push_back(':');
    sdk::append_json(out, value);
  });
  out.push_back('}');
}

std::size_t record_json_size(const Record& record) {
  std::size_t size = 1;  // {
  for_each_member(record, [&](std::string_view key, const auto& value) {
    size += sdk::json_size(key) + 1 + sdk::json_size(value) + 1;  // "key":value, or the closing }
  });
  return size == 1 ? 2 : size;
}

}  // namespace eventsvc::toolkit
