// 64-bit numbers as 8 big-endian bytes: encoded keys and positions sort bytewise as the numbers
// sort.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>

namespace eventsvc::toolkit {

inline void append_big_endian(std::string& out, std::uint64_t value) {
  for (int shift = 56; shift >= 0; shift -= 8)
    out.push_back(static_cast<char>((value >> static_cast<unsigned>(shift)) & 0xFFU));
}

// The number in the first 8 bytes (fewer when `bytes` is shorter).
inline std::uint64_t read_big_endian(std::string_view bytes) {
  std::uint64_t value = 0;
  for (std::size_t i = 0; i < 8 && i < bytes.size(); ++i)
    value = (value << 8U) | static_cast<unsigned char>(bytes[i]);
  return value;
}

}  // namespace eventsvc::toolkit
