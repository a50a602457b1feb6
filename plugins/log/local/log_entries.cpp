#include "log_entries.hpp"

#include "eventsvc/sdk/error.hpp"
#include "eventsvc/toolkit/big_endian.hpp"

namespace eventsvc::plugins::log {

namespace {

void put_field(std::string& out, std::string_view field) {
  toolkit::append_big_endian(out, field.size());
  out += field;
}

std::string_view take_field(std::string_view& in) {
  if (in.size() < 8) throw sdk::Error::internal("the local log holds a damaged entry");
  const std::uint64_t size = toolkit::read_big_endian(in);
  in.remove_prefix(8);
  if (size > in.size()) throw sdk::Error::internal("the local log holds a damaged entry");
  const std::string_view field = in.substr(0, size);
  in.remove_prefix(size);
  return field;
}

}  // namespace

sdk::LogPosition position_of(std::uint64_t sequence) {
  std::string position;
  toolkit::append_big_endian(position, sequence);
  return position;
}

std::uint64_t sequence_of(std::string_view position) {
  return toolkit::read_big_endian(position);
}

std::string encode_entry(std::string_view tenant, std::string_view receipt_id,
                         std::string_view receipt, std::string_view write) {
  std::string value;
  value.reserve(24 + tenant.size() + receipt_id.size() + receipt.size() + write.size());
  put_field(value, tenant);
  put_field(value, receipt_id);
  put_field(value, receipt);
  value += write;
  return value;
}

sdk::LogEntry decode_entry(std::string_view position, std::string_view value, bool with_write) {
  sdk::LogEntry entry;
  entry.position = std::string(position);
  entry.tenant = std::string(take_field(value));
  entry.receipt_id = std::string(take_field(value));
  entry.receipt = std::string(take_field(value));
  if (with_write) entry.write = std::string(value);
  return entry;
}

std::string tenant_key(std::string_view tenant, std::string_view key) {
  std::string out;
  put_field(out, tenant);
  out += key;
  return out;
}

std::string encode_answer(sdk::Millis created_at, std::string_view body) {
  std::string value;
  toolkit::append_big_endian(value, static_cast<std::uint64_t>(created_at));
  value += body;
  return value;
}

sdk::Millis created_at_of_answer(std::string_view value) {
  return static_cast<sdk::Millis>(toolkit::read_big_endian(value));
}

std::string_view body_of_answer(std::string_view value) {
  return value.size() < 8 ? std::string_view() : value.substr(8);
}

}  // namespace eventsvc::plugins::log
