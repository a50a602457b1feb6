// Fixed-width little-endian integers inside stored values (column chunks, their headers and
// string tables), written and read the same whatever the machine.
#pragma once

#include <bit>
#include <cstdint>
#include <cstring>
#include <string>
#include <string_view>

namespace eventsvc::plugins::rocksdb_storage {

inline void append_u32_le(std::string& out, std::uint32_t value) {
  for (int i = 0; i < 4; ++i) {
    out.push_back(static_cast<char>(value & 0xFFU));
    value >>= 8U;
  }
}

inline void append_u64_le(std::string& out, std::uint64_t value) {
  for (int i = 0; i < 8; ++i) {
    out.push_back(static_cast<char>(value & 0xFFU));
    value >>= 8U;
  }
}

// The `size`-byte (at most 8) integer at `offset`, which the caller has checked is in `bytes`.
inline std::uint64_t read_le(std::string_view bytes, std::size_t offset, int size) {
  std::uint64_t value = 0;
  if constexpr (std::endian::native == std::endian::little) {
    std::memcpy(&value, bytes.data() + offset, static_cast<std::size_t>(size));
  } else {
    for (int i = size - 1; i >= 0; --i) {
      value =
          (value << 8U) | static_cast<unsigned char>(bytes[offset + static_cast<std::size_t>(i)]);
    }
  }
  return value;
}

}  // namespace eventsvc::plugins::rocksdb_storage
