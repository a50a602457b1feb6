#include "store/key_codec.hpp"

#include <bit>
#include <cstring>

#include "eventsvc/toolkit/big_endian.hpp"

namespace eventsvc::plugins::rocksdb_storage {

std::string tenant_prefix(const sdk::Tenant& tenant) {
  std::string out;
  out.reserve(tenant.workspace.size() + 2);
  out.push_back(static_cast<char>(tenant.workspace.size()));
  out += tenant.workspace;
  out.push_back(tenant.environment == sdk::Environment::live ? 'L' : 'T');
  return out;
}

void append_u64(std::string& out, std::uint64_t value) {
  toolkit::append_big_endian(out, value);
}

std::uint64_t read_u64(std::string_view bytes) {
  return toolkit::read_big_endian(bytes);
}

void append_u32(std::string& out, std::uint32_t value) {
  for (int shift = 24; shift >= 0; shift -= 8)
    out.push_back(static_cast<char>((value >> static_cast<unsigned>(shift)) & 0xFFU));
}

std::uint32_t read_u32(std::string_view bytes) {
  std::uint32_t value = 0;
  for (std::size_t i = 0; i < 4; ++i)
    value = (value << 8U) | static_cast<unsigned char>(bytes[i]);
  return value;
}

void append_instant(std::string& out, sdk::Millis instant) {
  append_u64(out, static_cast<std::uint64_t>(instant) ^ (std::uint64_t{1} << 63U));
}

sdk::Millis read_instant(std::string_view bytes) {
  return static_cast<sdk::Millis>(read_u64(bytes) ^ (std::uint64_t{1} << 63U));
}

void append_varint(std::string& out, std::uint64_t value) {
  while (value >= 0x80) {
    out.push_back(static_cast<char>((value & 0x7FU) | 0x80U));
    value >>= 7U;
  }
  out.push_back(static_cast<char>(value));
}

std::optional<std::uint64_t> take_varint(std::string_view& bytes) {
  const char* at = bytes.data();
  std::uint64_t value = 0;
  if (!next_varint(at, bytes.data() + bytes.size(), value)) return std::nullopt;
  bytes.remove_prefix(static_cast<std::size_t>(at - bytes.data()));
  return value;
}

void append_string(std::string& out, std::string_view text) {
  append_varint(out, text.size());
  out += text;
}

std::optional<std::string_view> take_string(std::string_view& bytes) {
  std::string_view rest = bytes;
  const auto length = take_varint(rest);
  if (!length || *length > (1U << 29U) || rest.size() < *length) return std::nullopt;
  const std::string_view text = rest.substr(0, *length);
  bytes = rest.substr(*length);
  return text;
}

std::string version_key(std::string_view tenant, sdk::Millis timestamp, std::string_view id) {
  std::string key;
  key.reserve(tenant.size() + 8 + id.size());
  key += tenant;
  append_instant(key, timestamp);
  key += id;
  return key;
}

VersionKeyParts split_version_suffix(std::string_view suffix) {
  return {read_instant(suffix), suffix.substr(8)};
}

std::string prefix_successor(std::string_view prefix) {
  std::string out(prefix);
  while (!out.empty()) {
    if (static_cast<unsigned char>(out.back()) != 0xFF) {
      out.back() = static_cast<char>(static_cast<unsigned char>(out.back()) + 1);
      return out;
    }
    out.pop_back();
  }
  return out;
}

std::string encode_number(double value) {
  if (value == 0) value = 0;  // -0 and +0 are one value
  auto bits = std::bit_cast<std::uint64_t>(value);
  // Positive numbers: flip the sign bit; negative: flip every bit. Byte order = numeric order.
  bits = (bits & (std::uint64_t{1} << 63U)) != 0 ? ~bits : bits | (std::uint64_t{1} << 63U);
  std::string out;
  out.push_back(static_cast<char>(ValueTag::number));
  append_u64(out, bits);
  return out;
}

double decode_number(std::string_view encoded) {
  auto bits = read_u64(encoded.substr(1));
  bits = (bits & (std::uint64_t{1} << 63U)) != 0 ? bits & ~(std::uint64_t{1} << 63U) : ~bits;
  return std::bit_cast<double>(bits);
}

std::string encode_string_prefix(std::string_view text) {
  if (text.size() > kMaxIndexedStringBytes) text = text.substr(0, kMaxIndexedStringBytes);
  std::string out;
  out.reserve(text.size() + 3);
  out.push_back(static_cast<char>(ValueTag::string));
  for (const char c : text) {
    out.push_back(c);
    if (c == '\0') out.push_back('\xFF');
  }
  return out;
}

std::string encode_string(std::string_view text) {
  std::string out = encode_string_prefix(text);
  out.push_back('\0');
  out.push_back('\x01');
  return out;
}

std::optional<std::string> encode_value(const sdk::json::value& value) {
  switch (value.kind()) {
    case sdk::json::kind::null:
      return std::string(1, static_cast<char>(ValueTag::null));
    case sdk::json::kind::bool_:
      return std::string(1,
                         static_cast<char>(value.get_bool() ? ValueTag::true_ : ValueTag::false_));
    case sdk::json::kind::int64:
    case sdk::json::kind::uint64:
    case sdk::json::kind::double_:
      return encode_number(value.to_number<double>());
    case sdk::json::kind::string:
      return encode_string(value.get_string());
    default:
      return std::nullopt;
  }
}

}  // namespace eventsvc::plugins::rocksdb_storage
