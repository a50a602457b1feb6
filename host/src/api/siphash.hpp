// SipHash-2-4 with a 128-bit output (Aumasson and Bernstein), the tag of every export line's
// cursor. Written out here rather than called through OpenSSL's EVP_MAC interface, whose set-up
// and parameter look-ups per message cost more than the hash of a line's 40-byte payload.
#pragma once

#include <array>
#include <cstdint>
#include <string_view>

namespace eventsvc::host {

class SipHash128 {
 public:
  static constexpr std::size_t kKeySize = 16;
  static constexpr std::size_t kTagSize = 16;
  using Tag = std::array<unsigned char, kTagSize>;

  // `key`: exactly kKeySize bytes (std::invalid_argument otherwise).
  explicit SipHash128(std::string_view key);

  Tag tag(std::string_view message) const;

 private:
  std::uint64_t k0_ = 0;
  std::uint64_t k1_ = 0;
};

}  // namespace eventsvc::host
