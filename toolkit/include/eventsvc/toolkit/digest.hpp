// The digests built on canonical JSON (sdk::canonical_json, RFC 8785 JCS; DESIGN §3).
#pragma once

#include <filesystem>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "eventsvc/toolkit/vocabulary.hpp"

namespace eventsvc::toolkit {

inline constexpr std::string_view kDigestAlgorithm = "sha256-jcs";

// Lowercase hex SHA-256.
std::string sha256_hex(std::string_view data);
// The same of a file's bytes, read in blocks. Throws Error 500 naming the file.
std::string sha256_hex_of_file(const std::filesystem::path& path);

// Digest of one event: sha256_hex(sdk::canonical_json(event)).
std::string event_digest(const json::value& event);

// integrity.event_set_sha256 of a write: SHA-256 of the concatenation of id + "\n" + digest +
// "\n" over the distinct (id, digest) pairs, sorted bytewise by id, then by digest.
std::string event_set_sha256(std::vector<std::pair<std::string, std::string>> id_digest_pairs);

}  // namespace eventsvc::toolkit
