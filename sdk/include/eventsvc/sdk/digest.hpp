// Canonical JSON (RFC 8785, JCS) and the digests built on it (DESIGN §3).
#pragma once

#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "eventsvc/sdk/json.hpp"

namespace eventsvc::sdk {

inline constexpr std::string_view kDigestAlgorithm = "sha256-jcs";

// RFC 8785 canonical form: no whitespace, object members sorted by the UTF-16 code units of their
// names, strings with the minimal JSON escapes, numbers formatted as ECMAScript does for an IEEE
// double (so 1e21 -> "1e+21", 1e-7 -> "1e-7", -0 -> "0", and integers beyond 2^53 round).
std::string canonical_json(const json::value& value);

// Lowercase hex SHA-256.
std::string sha256_hex(std::string_view data);

// Digest of one event: sha256_hex(canonical_json(event)).
std::string event_digest(const json::value& event);

// integrity.event_set_sha256 of a write: SHA-256 of the concatenation of id + "\n" + digest +
// "\n" over the distinct (id, digest) pairs, sorted bytewise by id, then by digest.
std::string event_set_sha256(std::vector<std::pair<std::string, std::string>> id_digest_pairs);

}  // namespace eventsvc::sdk
