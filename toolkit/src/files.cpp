#include "eventsvc/toolkit/files.hpp"

#include <fcntl.h>
#include <unistd.h>

#include <string>

#include "eventsvc/toolkit/vocabulary.hpp"

namespace eventsvc::toolkit {

void replace_file(const std::filesystem::path& path, std::string_view bytes, mode_t mode) {
  const std::string temporary = path.string() + ".tmp";
  const int fd = ::open(temporary.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, mode);
  if (fd < 0) throw Error::internal("cannot write " + temporary);
  const bool written =
      ::write(fd, bytes.data(), bytes.size()) == static_cast<ssize_t>(bytes.size()) &&
      ::fsync(fd) == 0;
  ::close(fd);
  if (!written || ::rename(temporary.c_str(), path.c_str()) != 0) {
    throw Error::internal("cannot write " + path.string());
  }
  const auto directory = path.has_parent_path() ? path.parent_path() : std::filesystem::path(".");
  const int dir = ::open(directory.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC);
  const bool synced = dir >= 0 && ::fsync(dir) == 0;
  if (dir >= 0) ::close(dir);
  if (!synced) throw Error::internal("cannot sync " + directory.string());
}

}  // namespace eventsvc::toolkit
