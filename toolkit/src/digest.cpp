#include "eventsvc/toolkit/digest.hpp"

#include <openssl/evp.h>

#include <algorithm>
#include <array>
#include <fstream>
#include <memory>
#include <string>

#include "eventsvc/toolkit/hex.hpp"

namespace eventsvc::toolkit {

namespace {

std::string digest_hex(const unsigned char* digest, unsigned int length) {
  return hex_of(std::string_view(reinterpret_cast<const char*>(digest), length));
}

}  // namespace

std::string sha256_hex(std::string_view data) {
  std::array<unsigned char, EVP_MAX_MD_SIZE> digest{};
  unsigned int length = 0;
  if (EVP_Digest(data.data(), data.size(), digest.data(), &length, EVP_sha256(), nullptr) != 1) {
    throw Error::internal("SHA-256 failed");
  }
  return digest_hex(digest.data(), length);
}

std::string sha256_hex_of_file(const std::filesystem::path& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) throw Error::internal("cannot read " + path.string());
  const std::unique_ptr<EVP_MD_CTX, decltype(&EVP_MD_CTX_free)> context(EVP_MD_CTX_new(),
                                                                        &EVP_MD_CTX_free);
  bool hashed = context && EVP_DigestInit_ex(context.get(), EVP_sha256(), nullptr) == 1;
  std::array<char, 1 << 16> buffer{};
  while (hashed && in) {
    in.read(buffer.data(), buffer.size());
    hashed =
        EVP_DigestUpdate(context.get(), buffer.data(), static_cast<std::size_t>(in.gcount())) == 1;
  }
  if (in.bad()) throw Error::internal("cannot read " + path.string());
  std::array<unsigned char, EVP_MAX_MD_SIZE> digest{};
  unsigned int length = 0;
  if (!hashed || EVP_DigestFinal_ex(context.get(), digest.data(), &length) != 1) {
    throw Error::internal("SHA-256 failed");
  }
  return digest_hex(digest.data(), length);
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
