#include "eventsvc/toolkit/files.hpp"

#include <fcntl.h>
#include <unistd.h>

#include <fstream>
#include <sstream>
#include <string>

#include "eventsvc/toolkit/digest.hpp"
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

SealedJson read_sealed_json(const std::filesystem::path& path) {
  SealedJson sealed;
  std::ifstream in(path);
  if (!in) return sealed;
  std::ostringstream text;
  text << in.rdbuf();
  try {
    sealed.object = sdk::parse_json(text.str()).as_object();
  } catch (const std::exception&) {
    sealed.state = SealedJson::State::not_an_object;
    return sealed;
  }
  const auto* digest = sealed.object.if_contains("sha256");
  if (digest == nullptr || !digest->is_string()) {
    sealed.state = SealedJson::State::unsealed;
    return sealed;
  }
  const std::string recorded(digest->get_string());
  sealed.object.erase("sha256");
  sealed.state = sha256_hex(sdk::canonical_json(sealed.object)) == recorded
                     ? SealedJson::State::whole
                     : SealedJson::State::tampered;
  return sealed;
}

void write_sealed_json(const std::filesystem::path& path, sdk::json::object object) {
  object["sha256"] = sha256_hex(sdk::canonical_json(object));
  replace_file(path, sdk::to_json(object) + "\n");
}

}  // namespace eventsvc::toolkit
