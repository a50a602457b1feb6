// What a backup holds, written last into its directory (`eventsvc-backup.json`): every file with
// its size and SHA-256, so that `eventsvc restore` refuses a damaged or incomplete backup before it
// writes anything, and a backup directory without the file is known to be unfinished. One JSON
// object with a SHA-256 of the rest, as the storage's catalogue.
#pragma once

#include <cstdint>
#include <filesystem>
#include <string>
#include <vector>

#include "eventsvc/sdk/time.hpp"

namespace eventsvc::host {

struct BackupFile {
  std::string path;  // relative to the backup's directory, '/'-separated
  std::uint64_t size = 0;
  std::string sha256;
};

struct BackupManifest {
  static constexpr std::int64_t kFormat = 1;
  static constexpr const char* kFileName = "eventsvc-backup.json";

  std::int64_t format = kFormat;
  std::string version;  // of the eventsvc that took it
  sdk::Millis created_at = 0;
  std::string data_dir;                // where it was taken from
  std::vector<std::string> instances;  // the plugin instances copied, each a folder
  std::vector<BackupFile> files;       // sorted by path

  // Every regular file under `root` but the manifest, hashed.
  static std::vector<BackupFile> files_under(const std::filesystem::path& root);
  void write(const std::filesystem::path& root) const;
  // Throws sdk::Error 400 naming `root` when it has no manifest, or one that is damaged or of a
  // newer format.
  static BackupManifest read(const std::filesystem::path& root);
  // Throws sdk::Error 400 naming the first file that is missing or holds other bytes.
  void verify(const std::filesystem::path& root) const;
  std::uint64_t bytes() const;
};

}  // namespace eventsvc::host
