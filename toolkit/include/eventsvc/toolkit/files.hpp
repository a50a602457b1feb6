// Files a plugin keeps beside its data that must never be seen half written (a key file, a
// catalogue): replaced whole and durably.
#pragma once

#include <sys/types.h>

#include <filesystem>
#include <string_view>

namespace eventsvc::toolkit {

// Replaces `path` with `bytes`: written to `<path>.tmp` (created with `mode`), synced, renamed
// over `path`, and the directory synced, so that after a crash the file is the old one or the new
// one, whole. Throws Error (500) naming the file that could not be written.
void replace_file(const std::filesystem::path& path, std::string_view bytes, mode_t mode = 0644);

}  // namespace eventsvc::toolkit
