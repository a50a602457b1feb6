// Files a plugin keeps beside its data that must never be seen half written (a key file, a
// catalogue): replaced whole and durably.
#pragma once

#include <sys/types.h>

#include <filesystem>
#include <string_view>

#include "eventsvc/sdk/json.hpp"

namespace eventsvc::toolkit {

// Replaces `path` with `bytes`: written to `<path>.tmp` (created with `mode`), synced, renamed
// over `path`, and the directory synced, so that after a crash the file is the old one or the new
// one, whole. Throws Error (500) naming the file that could not be written.
void replace_file(const std::filesystem::path& path, std::string_view bytes, mode_t mode = 0644);

// A JSON object in a file that carries the SHA-256 of the rest of it (member "sha256", over its
// canonical JSON), so that a file cut off or edited is told from one written whole: a storage
// catalogue, a backup's manifest.
struct SealedJson {
  enum class State { absent, not_an_object, unsealed, tampered, whole };
  State state = State::absent;
  sdk::json::object object;  // without "sha256", when whole
};
SealedJson read_sealed_json(const std::filesystem::path& path);
// Adds the seal and writes the file with replace_file.
void write_sealed_json(const std::filesystem::path& path, sdk::json::object object);

}  // namespace eventsvc::toolkit
