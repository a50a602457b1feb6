#include "api/request_ids.hpp"

#include <openssl/rand.h>

#include <algorithm>

#include "eventsvc/sdk/error.hpp"
#include "eventsvc/sdk/json.hpp"
#include "eventsvc/toolkit/hex.hpp"

namespace eventsvc::host {

const std::string& required_idempotency_key(const RequestHead& request) {
  const std::string* header = request.header("Idempotency-Key");
  if (header == nullptr) {
    throw sdk::Error::bad_request(
        "the Idempotency-Key header is required: 8 to 128 printable ASCII characters, the same "
        "for every retry of one logical request");
  }
  const std::string& key = *header;
  const bool printable = std::all_of(key.begin(), key.end(), [](char c) {
    return static_cast<unsigned char>(c) >= 0x20 && static_cast<unsigned char>(c) <= 0x7E;
  });
  if (key.size() < 8 || key.size() > 128 || !printable) {
    throw sdk::Error::bad_request(
        "the Idempotency-Key header must be 8 to 128 printable ASCII characters (got " +
            std::to_string(key.size()) + ")",
        {{"errors", sdk::json::array{sdk::json::object{
                        {"path", "header:Idempotency-Key"},
                        {"message", "must be 8 to 128 printable ASCII characters"}}}}});
  }
  return key;
}

std::string random_hex(std::size_t bytes) {
  std::string random(bytes, '\0');
  if (RAND_bytes(reinterpret_cast<unsigned char*>(random.data()),
                 static_cast<int>(random.size())) != 1)
    throw sdk::Error::internal("the random number generator failed");
  return toolkit::hex_of(random);
}

std::string new_random_id(std::string_view prefix) {
  return std::string(prefix) + random_hex(8);
}

bool is_random_id(std::string_view id, std::string_view prefix) {
  if (id.size() != prefix.size() + 16 || !id.starts_with(prefix)) return false;
  return std::all_of(id.begin() + static_cast<std::ptrdiff_t>(prefix.size()), id.end(),
                     [](char c) { return (c >= '0' && c <= '9') || (c >= 'a' && c <= 'f'); });
}

}  // namespace eventsvc::host
