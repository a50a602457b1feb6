#include "store/stored_formats.hpp"

#include <bit>

#include "eventsvc/sdk/error.hpp"
#include "store/key_codec.hpp"
#include "store/little_endian.hpp"

namespace eventsvc::plugins::rocksdb_storage {

namespace json = sdk::json;

namespace {

// Format 2 records the payload's length, so that a reader splicing the record's answer
// (store/record_text.hpp) steps over the payload instead of scanning it; format 1, written by
// earlier versions, is read as it was.
constexpr char kFirstRecordFormat = 1;
constexpr char kRecordFormat = 2;
constexpr std::size_t kDigestLength = 64;
constexpr std::size_t kPayloadSizeLength = 4;

[[noreturn]] void damaged(const char* what) {
  throw sdk::Error::internal(std::string("stored ") + what + " is damaged");
}

std::optional<std::string> optional_string(const json::object& object, std::string_view key) {
  const auto* value = object.if_contains(key);
  if (value == nullptr || !value->is_string()) return std::nullopt;
  return std::string(value->get_string());
}

void put_optional(json::object& object, std::string_view key,
                  const std::optional<std::string>& value) {
  if (value) object[key] = *value;
}

std::string with_created_at(sdk::Millis created_at, std::string_view rest) {
  std::string out;
  out.reserve(8 + rest.size());
  append_u64(out, static_cast<std::uint64_t>(created_at));
  out += rest;
  return out;
}

}  // namespace

void damaged_value(const char* what) {
  damaged(what);
}

json::object parse_object(std::string_view text, const char* what) {
  try {
    auto value = sdk::parse_json(text, 1024);
    if (!value.is_object()) damaged(what);
    return std::move(value.get_object());
  } catch (const sdk::Error&) {
    damaged(what);
  }
}

sdk::Millis created_at_of(std::string_view value) {
  return static_cast<sdk::Millis>(read_u64(value));
}

std::string encode_record(const sdk::Record& record) {
  // The members before the payload as an object, its closing brace then replaced: the JSON is
  // what one object of every member in this order gives.
  json::object head;
  head.reserve(10);
  head["id"] = record.id;
  head["type"] = record.type;
  head["stream"] = record.stream;
  put_optional(head, "ns", record.namespace_name);
  put_optional(head, "site", record.site_id);
  put_optional(head, "src", record.source_id);
  head["ts"] = record.timestamp;
  head["ing"] = record.ingested_at;
  head["rcpt"] = record.receipt_id;
  head["seq"] = record.sequence;
  std::string out;
  out.push_back(kRecordFormat);
  out += record.proof_digest;
  const std::size_t size_at = out.size();
  out.append(kPayloadSizeLength, '\0');
  sdk::append_json(out, head);
  out.back() = ',';
  out += R"("payload":)";
  const std::size_t payload_at = out.size();
  sdk::append_json(out, record.payload);
  std::string size;
  append_u32(size, static_cast<std::uint32_t>(out.size() - payload_at));
  out.replace(size_at, kPayloadSizeLength, size);
  if (record.metrics.is_object()) {
    out += R"(,"metrics":)";
    sdk::append_json(out, record.metrics);
  }
  if (!record.attributes.empty()) {
    out += R"(,"attrs":)";
    sdk::append_json(out, record.attributes);
  }
  if (!record.envelope.empty()) {
    out += R"(,"env":)";
    sdk::append_json(out, record.envelope);
  }
  out.push_back('}');
  return out;
}

StoredRecordParts stored_record_parts(std::string_view value) {
  if (value.size() < 1 + kDigestLength) damaged("record");
  StoredRecordParts parts;
  parts.digest = value.substr(1, kDigestLength);
  if (value[0] == kFirstRecordFormat) {
    parts.json = value.substr(1 + kDigestLength);
    return parts;
  }
  if (value[0] != kRecordFormat || value.size() < 1 + kDigestLength + kPayloadSizeLength)
    damaged("record");
  parts.payload_size = read_u32(value.substr(1 + kDigestLength));
  parts.json = value.substr(1 + kDigestLength + kPayloadSizeLength);
  return parts;
}

std::string_view record_digest(std::string_view value) {
  return stored_record_parts(value).digest;
}

sdk::Record decode_record(std::string_view value) {
  sdk::Record record;
  const StoredRecordParts parts = stored_record_parts(value);
  record.proof_digest = std::string(parts.digest);
  json::object object = parse_object(parts.json, "record");
  try {
    record.id = object.at("id").as_string();
    record.type = object.at("type").as_string();
    record.stream = object.at("stream").as_string();
    record.namespace_name = optional_string(object, "ns");
    record.site_id = optional_string(object, "site");
    record.source_id = optional_string(object, "src");
    record.timestamp = object.at("ts").to_number<sdk::Millis>();
    record.ingested_at = object.at("ing").to_number<sdk::Millis>();
    record.receipt_id = object.at("rcpt").as_string();
    record.sequence = object.at("seq").to_number<std::uint64_t>();
    record.payload = std::move(object.at("payload"));
    if (auto* metrics = object.if_contains("metrics")) record.metrics = std::move(*metrics);
    if (auto* attributes = object.if_contains("attrs")) {
      record.attributes = std::move(attributes->as_object());
    }
    if (auto* envelope = object.if_contains("env"))
      record.envelope = std::move(envelope->as_object());
  } catch (const std::exception&) {
    damaged("record");
  }
  return record;
}

sdk::Record record_of(const json::object& event, const sdk::EventVersion& version,
                      const AcceptedWrite& write) {
  sdk::Record record;
  record.stream = write.envelope.stream;
  record.namespace_name = write.envelope.namespace_name;
  record.site_id = write.envelope.site_id;
  record.source_id = write.envelope.source_id;
  record.envelope = write.envelope.extras;
  record.receipt_id = write.receipt_id;
  record.ingested_at = write.received_at;
  record.id = version.id;
  record.timestamp = version.occurred_at;
  record.proof_digest = version.digest;
  record.type = event.at("type").as_string();
  record.payload = event.at("data");
  for (const auto& member : event) {
    const std::string_view key = member.key();
    if (key == "id" || key == "type" || key == "occurred_at" || key == "data") continue;
    if (key == "metrics" && member.value().is_object()) {
      record.metrics = member.value();
      continue;
    }
    record.attributes[key] = member.value();
  }
  return record;
}

std::string encode_accepted_write(const AcceptedWrite& write) {
  json::array events;
  events.reserve(write.events.size());
  for (const auto& event : write.events) {
    events.emplace_back(json::object{{"id", event.version.id},
                                     {"ts", event.version.occurred_at},
                                     {"d", event.version.digest},
                                     {"e", event.event}});
  }
  json::object object{
      {"w", write.tenant.workspace}, {"e", sdk::environment_name(write.tenant.environment)},
      {"r", write.receipt_id},       {"s", write.envelope.stream},
      {"at", write.received_at},     {"ev", std::move(events)}};
  put_optional(object, "ns", write.envelope.namespace_name);
  put_optional(object, "site", write.envelope.site_id);
  put_optional(object, "src", write.envelope.source_id);
  if (!write.envelope.extras.empty()) object["env"] = write.envelope.extras;
  return sdk::to_json(object);
}

AcceptedWrite decode_accepted_write(std::string_view value) {
  json::object object = parse_object(value, "accepted write");
  AcceptedWrite write;
  try {
    write.tenant.workspace = object.at("w").as_string();
    write.tenant.environment =
        sdk::parse_environment(object.at("e").as_string()).value_or(sdk::Environment::test);
    write.receipt_id = object.at("r").as_string();
    write.envelope.stream = object.at("s").as_string();
    write.received_at = object.at("at").to_number<sdk::Millis>();
    write.envelope.namespace_name = optional_string(object, "ns");
    write.envelope.site_id = optional_string(object, "site");
    write.envelope.source_id = optional_string(object, "src");
    if (auto* envelope = object.if_contains("env")) {
      write.envelope.extras = std::move(envelope->as_object());
    }
    for (auto& entry : object.at("ev").as_array()) {
      auto& event = entry.as_object();
      AcceptedEvent accepted;
      accepted.version.id = event.at("id").as_string();
      accepted.version.occurred_at = event.at("ts").to_number<sdk::Millis>();
      accepted.version.digest = event.at("d").as_string();
      accepted.event = std::move(event.at("e").as_object());
      write.events.push_back(std::move(accepted));
    }
  } catch (const std::exception&) {
    damaged("accepted write");
  }
  return write;
}

std::string encode_receipt(const StoredReceipt& stored) {
  const sdk::Receipt& receipt = stored.receipt;
  json::array events;
  for (const auto& event : stored.events) {
    events.emplace_back(json::array{json::value(event.id), json::value(event.occurred_at),
                                    json::value(event.digest)});
  }
  json::array conflicts;
  for (const auto& conflict : receipt.conflicts) {
    conflicts.emplace_back(json::array{json::value(conflict.id), json::value(conflict.occurred_at),
                                       json::value(conflict.submitted_digest),
                                       json::value(conflict.stored_digest)});
  }
  const json::object object{{"state", static_cast<int>(receipt.state)},
                            {"sub", receipt.submitted},
                            {"acc", receipt.accepted},
                            {"dup", receipt.duplicates},
                            {"ver", receipt.verified_events},
                            {"set", receipt.event_set_sha256},
                            {"u", receipt.updated_at},
                            {"ev", std::move(events)},
                            {"conf", std::move(conflicts)}};
  return with_created_at(receipt.created_at, sdk::to_json(object));
}

StoredReceipt decode_receipt(std::string_view value) {
  if (value.size() < 8) damaged("receipt");
  json::object object = parse_object(value.substr(8), "receipt");
  StoredReceipt stored;
  sdk::Receipt& receipt = stored.receipt;
  try {
    receipt.created_at = created_at_of(value);
    receipt.state = static_cast<sdk::ReceiptState>(object.at("state").to_number<int>());
    receipt.submitted = object.at("sub").to_number<std::size_t>();
    receipt.accepted = object.at("acc").to_number<std::size_t>();
    receipt.duplicates = object.at("dup").to_number<std::size_t>();
    receipt.verified_events = object.at("ver").to_number<std::size_t>();
    receipt.event_set_sha256 = object.at("set").as_string();
    receipt.updated_at = object.at("u").to_number<sdk::Millis>();
    for (const auto& entry : object.at("ev").as_array()) {
      const auto& event = entry.as_array();
      stored.events.push_back({std::string(event.at(0).as_string()),
                               event.at(1).to_number<sdk::Millis>(),
                               std::string(event.at(2).as_string())});
    }
    for (const auto& entry : object.at("conf").as_array()) {
      const auto& conflict = entry.as_array();
      receipt.conflicts.push_back(
          {std::string(conflict.at(0).as_string()), conflict.at(1).to_number<sdk::Millis>(),
           std::string(conflict.at(2).as_string()), std::string(conflict.at(3).as_string())});
    }
  } catch (const std::exception&) {
    damaged("receipt");
  }
  return stored;
}

std::string encode_idempotency(sdk::Millis created_at, std::string_view body) {
  return with_created_at(created_at, body);
}

std::string encode_embedding(std::string_view model, const std::vector<float>& vector) {
  std::string out;
  append_string(out, model);
  for (const float value : vector)
    append_u32_le(out, std::bit_cast<std::uint32_t>(value));
  return out;
}

std::vector<float> decode_embedding(std::string_view value, std::string_view model) {
  const auto stored_model = take_string(value);
  if (!stored_model || *stored_model != model) return {};
  std::vector<float> vector(value.size() / 4);
  for (std::size_t i = 0; i < vector.size(); ++i)
    vector[i] = std::bit_cast<float>(static_cast<std::uint32_t>(read_le(value, i * 4, 4)));
  return vector;
}

}  // namespace eventsvc::plugins::rocksdb_storage
