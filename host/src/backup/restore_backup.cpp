#include "backup/restore_backup.hpp"

#include "backup/backup_files.hpp"
#include "backup/backup_manifest.hpp"
#include "eventsvc/sdk/error.hpp"

namespace eventsvc::host {

namespace fs = std::filesystem;

namespace {

constexpr const char* kStaging = ".restoring";

// Empty but for what an interrupted restore into it left.
bool is_empty_directory(const fs::path& directory) {
  std::error_code error;
  for (const auto& entry : fs::directory_iterator(directory, error)) {
    if (entry.path().filename() != kStaging) return false;
  }
  return !error;
}

void check_target(const fs::path& data_dir) {
  std::error_code error;
  if (fs::exists(data_dir, error) &&
      (!fs::is_directory(data_dir, error) || !is_empty_directory(data_dir))) {
    throw sdk::Error::bad_request(data_dir.string() +
                                  " is not empty: a backup is restored as a new data directory "
                                  "(move the old one away first)");
  }
}

// RocksDB never changes a table file once written, so the restored database may share it with
// the backup; every other file (a MANIFEST, a key file) is written to, and is copied.
bool shareable(const fs::path& path) {
  return path.extension() == ".sst";
}

RestoreSummary write_out(const BackupManifest& manifest, const fs::path& from,
                         const fs::path& staging, const fs::path& target, bool exists) {
  RestoreSummary summary;
  summary.data_dir = target;
  summary.created_at = manifest.created_at;
  summary.version = manifest.version;
  for (const auto& file : manifest.files) {
    const fs::path source = from / file.path;
    const fs::path destination = staging / file.path;
    fs::create_directories(destination.parent_path());
    std::error_code error;
    if (shareable(destination)) fs::create_hard_link(source, destination, error);
    if (shareable(destination) && !error) {
      summary.linked_bytes += file.size;
    } else {
      copy_file_synced(source, destination);
    }
    summary.bytes += file.size;
    ++summary.files;
  }
  sync_directories(staging);
  if (exists) {
    for (const auto& entry : fs::directory_iterator(staging))
      fs::rename(entry.path(), target / entry.path().filename());
    fs::remove(staging);
    sync_path(target);
  } else {
    fs::rename(staging, target);
    sync_path(target.parent_path());
  }
  return summary;
}

}  // namespace

RestoreSummary restore_backup(const fs::path& from, const fs::path& data_dir) {
  fs::path target = fs::absolute(data_dir).lexically_normal();
  if (!target.has_filename()) target = target.parent_path();  // "dir/"
  check_target(target);
  const BackupManifest manifest = BackupManifest::read(from);
  manifest.verify(from);

  // Beside a new data directory, renamed into place: it appears whole or not at all. Inside one
  // that exists (an empty mount point, which cannot be replaced), moved into it at the end.
  const bool exists = fs::exists(target);
  const fs::path staging = exists ? target / kStaging : fs::path(target.string() + kStaging);
  fs::remove_all(staging);  // what an interrupted restore left
  fs::create_directories(staging);
  fs::permissions(staging, fs::perms::owner_all);
  try {
    return write_out(manifest, from, staging, target, exists);
  } catch (...) {
    std::error_code ignored;
    fs::remove_all(staging, ignored);
    throw;
  }
}

}  // namespace eventsvc::host
