#include "api/siphash.hpp"

#include <bit>
#include <stdexcept>

namespace eventsvc::host {

namespace {

std::uint64_t little_endian_64(const unsigned char* bytes, std::size_t count) {
  std::uint64_t value = 0;
  for (std::size_t i = 0; i < count; ++i)
    value |= std::uint64_t{bytes[i]} << (8 * i);
  return value;
}

void put_little_endian_64(std::uint64_t value, unsigned char* out) {
  for (std::size_t i = 0; i < 8; ++i)
    out[i] = static_cast<unsigned char>(value >> (8 * i));
}

struct State {
  std::uint64_t v0, v1, v2, v3;

  void round() {
    v0 += v1;
    v1 = std::rotl(v1, 13);
    v1 ^= v0;
    v0 = std::rotl(v0, 32);
    v2 += v3;
    v3 = std::rotl(v3, 16);
    v3 ^= v2;
    v0 += v3;
    v3 = std::rotl(v3, 21);
    v3 ^= v0;
    v2 += v1;
    v1 = std::rotl(v1, 17);
    v1 ^= v2;
    v2 = std::rotl(v2, 32);
  }
  void compress(std::uint64_t block) {
    v3 ^= block;
    round();
    round();
    v0 ^= block;
  }
  std::uint64_t finish_half() {
    for (int i = 0; i < 4; ++i)
      round();
    return v0 ^ v1 ^ v2 ^ v3;
  }
};

}  // namespace

SipHash128::SipHash128(std::string_view key) {
  if (key.size() != kKeySize) throw std::invalid_argument("a SipHash key is 16 bytes");
  const auto* bytes = reinterpret_cast<const unsigned char*>(key.data());
  k0_ = little_endian_64(bytes, 8);
  k1_ = little_endian_64(bytes + 8, 8);
}

SipHash128::Tag SipHash128::tag(std::string_view message) const {
  State state{k0_ ^ 0x736f6d6570736575ULL, k1_ ^ 0x646f72616e646f6dULL ^ 0xee,
              k0_ ^ 0x6c7967656e657261ULL, k1_ ^ 0x7465646279746573ULL};
  const auto* bytes = reinterpret_cast<const unsigned char*>(message.data());
  const std::size_t whole = message.size() / 8 * 8;
  for (std::size_t at = 0; at < whole; at += 8)
    state.compress(little_endian_64(bytes + at, 8));
  // The last block: the bytes left over, and the message's length (mod 256) in its top byte.
  state.compress(little_endian_64(bytes + whole, message.size() - whole) |
                 (std::uint64_t{message.size() & 0xff} << 56));
  Tag tag{};
  state.v2 ^= 0xee;
  put_little_endian_64(state.finish_half(), tag.data());
  state.v1 ^= 0xdd;
  put_little_endian_64(state.finish_half(), tag.data() + 8);
  return tag;
}

}  // namespace eventsvc::host
