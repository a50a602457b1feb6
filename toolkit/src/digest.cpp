#include "eventsvc/toolkit/digest.hpp"

#include <openssl/evp.h>

#include <algorithm>
#include <array>
#include <string>

namespace eventsvc::toolkit {

std::string sha256_hex(std::string_view data) {
  std::array<unsigned char, EVP_MAX_MD_SIZE> digest{};
  unsigned int length = 0;
  if (EVP_Digest(data.data(), data.size(), digest.data(), &length, EVP_sha256(), nullptr) != 1) {
    throw Error::internal("SHA-256 failed");
  }
  static constexpr char kHex[] = "0123456789abcdef";
  std::string hex;
  hex.reserve(static_cast<std::size_t>(length) * 2);
  for (unsigned int i = 0; i < length; ++i) {
    hex.push_back(kHex[digest[i] >> 4U]);
    hex.push_back(kHex[digest[i] & 0xFU]);
  }
  return hex;
}

std::string event_digest(const json::value& event) {
  return sha256_hex(sdk::canonical_json(event));
}

std::string event_set_sha256(std::vector<std::pair<std::string, std::string>> id_digest_pairs) {
  std::sort(id_digest_pairs.begin(), id_digest_pairs.end());
  id_digest_pairs.erase(std::unique(id_digest_pairs.begin(), id_digest_pairs.end()),
                        id_digest_pairs.end());
  std::string text;
  for (const auto& [id, digest] : id_digest_pairs) {
    text += id;
    text.push_back('\n');
    text += digest;
    text.push_back('\n');
  }
  return sha256_hex(text);
}

}  // namespace eventsvc::toolkit
