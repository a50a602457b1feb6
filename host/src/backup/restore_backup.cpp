#include "backup/restore_backup.hpp"

#include "backup/backup_files.hpp"
#include "backup/backup_manifest.hpp"
#include "eventsvc/sdk/error.hpp"
#include "eventsvc/toolkit/time.hpp"

namespace eventsvc::host {

namespace fs = std::filesystem;

namespace {

void check_target(const fs::path& data_dir) {
  std::error_code error;
  if (fs::exists(data_dir, error) &&
      (!fs::is_directory(data_dir, error) || !fs::is_empty(data_dir, error))) {
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

}  // namespace

sdk::json::object RestoreSummary::to_json() const {
  return {{"data_dir", data_dir.string()},
          {"files", files},
          {"bytes", bytes},
          {"linked_bytes", linked_bytes},
          {"backup_created_at", toolkit::format_rfc3339(created_at)},
          {"backup_eventsvc", version}};
}

RestoreSummary restore_backup(const fs::path& from, const fs::path& data_dir) {
  check_target(data_dir);
  const BackupManifest manifest = BackupManifest::read(from);
  manifest.verify(from);

  const fs::path target = fs::absolute(data_dir).lexically_normal();
  fs::path staging = target;
  staging += ".restoring";
  fs::remove_all(staging);  // what an interrupted restore left
  fs::create_directories(staging);
  fs::permissions(staging, fs::perms::owner_all);
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
  std::error_code ignored;
  fs::remove(target, ignored);  // an empty directory (check_target)
  fs::rename(staging, target);
  sync_path(target.parent_path());
  return summary;
}

}  // namespace eventsvc::host
