#include "backup/take_backup.hpp"

#include <sys/stat.h>

#include <string>
#include <vector>

#include "backup/backup_files.hpp"
#include "backup/backup_manifest.hpp"
#include "eventsvc/sdk/error.hpp"
#include "eventsvc/toolkit/time.hpp"
#include "modules/module.hpp"

namespace eventsvc::host {

namespace fs = std::filesystem;

namespace {

void check_target(const HostConfig& config, const fs::path& to) {
  if (!to.is_absolute()) {
    throw sdk::Error::bad_request("the backup's directory must be an absolute path, not '" +
                                  to.string() + "'");
  }
  if (is_inside(to, config.data_dir)) {
    throw sdk::Error::bad_request(to.string() + " is inside the data directory " +
                                  config.data_dir.string() + ": a backup goes elsewhere");
  }
  std::error_code error;
  if (fs::exists(to, error) && (!fs::is_directory(to, error) || !fs::is_empty(to, error))) {
    throw sdk::Error::bad_request(to.string() +
                                  " is not empty: a backup goes into a new or empty directory");
  }
}

// The files of an instance that keeps no database of its own, as they are: such a plugin replaces
// its files whole (toolkit::replace_file), so each copy is one version of its file. A file being
// written beside one (`<name>.tmp`) is not, nor one that went away meanwhile.
void copy_instance_files(const fs::path& from, const fs::path& into) {
  fs::create_directories(into);
  std::error_code error;
  if (!fs::is_directory(from, error)) return;
  for (const auto& entry : fs::recursive_directory_iterator(from)) {
    const auto target = into / entry.path().lexically_relative(from);
    if (entry.is_directory()) {
      fs::create_directories(target);
    } else if (entry.is_regular_file() && entry.path().extension() != ".tmp") {
      try {
        copy_file_synced(entry.path(), target);
      } catch (const fs::filesystem_error& gone) {
        if (gone.code() != std::errc::no_such_file_or_directory) throw;
      }
    }
  }
}

// Storage first, then the durable log (its copy must hold every entry the storage's copy has not
// made its own), then the others.
std::vector<const ModuleRegistry::Loaded*> backup_order(const ModuleRegistry& modules) {
  const sdk::Plugin* storage = modules.storage().plugin;
  const sdk::Plugin* log = modules.log().plugin;
  auto rank = [&](const ModuleRegistry::Loaded& module) {
    return module.plugin.get() == storage ? 0 : module.plugin.get() == log ? 1 : 2;
  };
  std::vector<const ModuleRegistry::Loaded*> order;
  for (int wanted = 0; wanted < 3; ++wanted) {
    for (const auto& module : modules.loaded()) {
      if (rank(module) == wanted) order.push_back(&module);
    }
  }
  return order;
}

std::string label_of(const ModuleRegistry::Loaded& module) {
  return "plugin instance '" + module.instance + "'";
}

// begin_backup() on every plugin, and end_backup() however the copy ends.
class BackupHold {
 public:
  explicit BackupHold(const std::vector<const ModuleRegistry::Loaded*>& order) : order_(order) {
    try {
      for (const auto* module : order_) {
        call_plugin(label_of(*module), [&] { module->plugin->begin_backup(); });
        ++begun_;
      }
    } catch (...) {
      release();
      throw;
    }
  }
  ~BackupHold() { release(); }
  BackupHold(const BackupHold&) = delete;
  BackupHold& operator=(const BackupHold&) = delete;

 private:
  void release() noexcept {
    for (std::size_t i = 0; i < begun_; ++i) {
      try {
        order_[i]->plugin->end_backup();
      } catch (...) {  // NOLINT(bugprone-empty-catch): nothing is left to undo
      }
    }
    begun_ = 0;
  }

  const std::vector<const ModuleRegistry::Loaded*>& order_;
  std::size_t begun_ = 0;
};

void copy_instances(const HostConfig& config,
                    const std::vector<const ModuleRegistry::Loaded*>& order, const fs::path& to) {
  for (const auto* module : order) {
    const auto into = to / module->instance;
    const bool written =
        call_plugin(label_of(*module) + " (backup)", [&] { return module->plugin->back_up(into); });
    if (!written) copy_instance_files(config.data_dir / module->instance, into);
  }
}

void copy_tls_material(const HostConfig& config, const fs::path& to) {
  for (const auto& file : {config.server.tls.certificate, config.server.tls.private_key}) {
    std::error_code error;
    if (!is_inside(file, config.data_dir) || !fs::is_regular_file(file, error)) continue;
    copy_file_synced(file, to / fs::weakly_canonical(file).lexically_relative(
                                    fs::weakly_canonical(config.data_dir)));
  }
}

void remove_written(const fs::path& to, bool created) {
  std::error_code ignored;
  if (created) {
    fs::remove_all(to, ignored);
    return;
  }
  for (const auto& entry : fs::directory_iterator(to, ignored))
    fs::remove_all(entry.path(), ignored);
}

}  // namespace

sdk::json::object BackupSummary::to_json() const {
  return {{"to", to.string()},
          {"files", files},
          {"bytes", bytes},
          {"shared_bytes", shared_bytes},
          {"took_ms", took_ms}};
}

BackupSummary take_backup(const HostConfig& config, const ModuleRegistry& modules,
                          const fs::path& to) {
  check_target(config, to);
  const sdk::Millis started = toolkit::now_millis();
  const bool created = !fs::exists(to);
  fs::create_directories(to);
  // It holds the keys' digests and the TLS private key.
  fs::permissions(to, fs::perms::owner_all);
  const auto order = backup_order(modules);
  BackupManifest manifest;
  try {
    {
      const BackupHold hold(order);
      copy_instances(config, order, to);
    }
    copy_tls_material(config, to);
    manifest.version = EVENTSVC_VERSION;
    manifest.created_at = started;
    manifest.data_dir = config.data_dir.string();
    for (const auto* module : order)
      manifest.instances.push_back(module->instance);
    manifest.files = BackupManifest::files_under(to);
    sync_directories(to);
    manifest.write(to);
  } catch (const std::exception&) {
    remove_written(to, created);
    throw;
  }
  BackupSummary summary;
  summary.to = to;
  summary.files = manifest.files.size();
  summary.bytes = manifest.bytes();
  for (const auto& file : manifest.files) {
    struct stat info {};
    if (::stat((to / file.path).c_str(), &info) == 0 && info.st_nlink > 1) {
      summary.shared_bytes += file.size;
    }
  }
  summary.took_ms = toolkit::now_millis() - started;
  return summary;
}

}  // namespace eventsvc::host
