// File operations shared by backup and restore: copies that survive a power cut, and where a path
// lies.
#pragma once

#include <filesystem>

namespace eventsvc::host {

// Whether `path` lies inside `directory` or is it (both may not exist yet; symbolic links
// resolved).
bool is_inside(const std::filesystem::path& path, const std::filesystem::path& directory);

// fsync of a file or directory. Throws sdk::Error 500 naming it.
void sync_path(const std::filesystem::path& path);

// Copies a file (its directories created), synced.
void copy_file_synced(const std::filesystem::path& from, const std::filesystem::path& to);

// fsync of `root` and every directory under it: the names written there survive a power cut.
void sync_directories(const std::filesystem::path& root);

}  // namespace eventsvc::host
