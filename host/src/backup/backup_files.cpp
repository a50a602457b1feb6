#include "backup/backup_files.hpp"

#include <fcntl.h>
#include <unistd.h>

#include "eventsvc/sdk/error.hpp"

namespace eventsvc::host {

namespace fs = std::filesystem;

bool is_inside(const fs::path& path, const fs::path& directory) {
  const auto relative =
      fs::weakly_canonical(path).lexically_relative(fs::weakly_canonical(directory));
  return !relative.empty() && *relative.begin() != "..";
}

void sync_path(const fs::path& path) {
  const int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
  if (fd < 0 || ::fsync(fd) != 0) {
    if (fd >= 0) ::close(fd);
    throw sdk::Error::internal("cannot make " + path.string() + " durable");
  }
  ::close(fd);
}

void copy_file_synced(const fs::path& from, const fs::path& to) {
  fs::create_directories(to.parent_path());
  fs::copy_file(from, to, fs::copy_options::overwrite_existing);
  sync_path(to);
}

void sync_directories(const fs::path& root) {
  for (const auto& entry : fs::recursive_directory_iterator(root)) {
    if (entry.is_directory()) sync_path(entry.path());
  }
  sync_path(root);
}

}  // namespace eventsvc::host
