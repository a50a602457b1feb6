// Byte layouts of RocksDB keys. Everything a tenant owns sits under its tenant prefix, so two
// workspaces or the two environments of one workspace can never read each other's keys.
//
//   tenant prefix   <len:1><workspace bytes><env: 'L' | 'T'>
//   instant         8 bytes, big-endian, sign bit flipped: byte order = time order
//   version key     <tenant><instant><id bytes>            (history records, current membership)
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

#include "eventsvc/sdk/json.hpp"
#include "eventsvc/sdk/principal.hpp"
#include "eventsvc/sdk/time.hpp"

namespace eventsvc::plugins::rocksdb_storage {

std::string tenant_prefix(const sdk::Tenant& tenant);

void append_u64(std::string& out, std::uint64_t value);
std::uint64_t read_u64(std::string_view bytes);  // the first 8 bytes, big-endian
void append_u32(std::string& out, std::uint32_t value);
std::uint32_t read_u32(std::string_view bytes);  // the first 4 bytes, big-endian

void append_instant(std::string& out, sdk::Millis instant);
sdk::Millis read_instant(std::string_view bytes);

// LEB128: 7 bits a byte, low bits first. take_varint removes it from the front of `bytes`;
// nullopt when damaged.
void append_varint(std::string& out, std::uint64_t value);
std::optional<std::uint64_t> take_varint(std::string_view& bytes);
// The same over a cursor, inline, for loops that decode many (postings): reads one varint at
// `at` (before `end`) into `value` and moves past it; false when it is cut off or too long.
inline bool next_varint(const char*& at, const char* end, std::uint64_t& value) {
  if (at < end && (static_cast<unsigned char>(*at) & 0x80U) == 0) {  // one byte: most gaps
    value = static_cast<unsigned char>(*at++);
    return true;
  }
  value = 0;
  for (unsigned shift = 0; at < end && shift <= 63; shift += 7) {
    const auto byte = static_cast<unsigned char>(*at++);
    value |= static_cast<std::uint64_t>(byte & 0x7FU) << shift;
    if ((byte & 0x80U) == 0) return true;
  }
  return false;
}

// Length-prefixed string (varint length): unambiguous in the middle of a key.
void append_string(std::string& out, std::string_view text);
// Reads one length-prefixed string from the front of `bytes` and removes it; nullopt when damaged.
std::optional<std::string_view> take_string(std::string_view& bytes);

// <tenant><instant><id>
std::string version_key(std::string_view tenant, sdk::Millis timestamp, std::string_view id);

struct VersionKeyParts {
  sdk::Millis timestamp;
  std::string_view id;
};
// Splits the part of a version key after the tenant prefix.
VersionKeyParts split_version_suffix(std::string_view suffix);

// The smallest key greater than every key that starts with `prefix` ("" when none exists).
std::string prefix_successor(std::string_view prefix);

// Order-preserving encoding of a scalar JSON value for index keys: a type tag, then the value.
// null < false < true < numbers (by value, as IEEE doubles) < strings (bytewise). Strings are
// escaped (0x00 -> 0x00 0xFF) and terminated with 0x00 0x01 so a shorter string sorts first and
// prefixes stay contiguous. Long strings are cut at kMaxIndexedStringBytes (candidates are always
// confirmed against the record, so this only widens a seek).
inline constexpr std::size_t kMaxIndexedStringBytes = 256;
// `container` marks an object or array value: it exists (for exists: true) but equals no scalar.
enum class ValueTag : std::uint8_t {
  null = 0x01,
  false_ = 0x02,
  true_ = 0x03,
  number = 0x04,
  string = 0x05,
  container = 0x06,
};

// nullopt for arrays and objects (not indexed as values).
std::optional<std::string> encode_value(const sdk::json::value& value);
std::string encode_number(double value);
double decode_number(std::string_view encoded);           // inverse of encode_number
std::string encode_string(std::string_view text);         // tag + escaped + terminator
std::string encode_string_prefix(std::string_view text);  // tag + escaped, no terminator

}  // namespace eventsvc::plugins::rocksdb_storage
