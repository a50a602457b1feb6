#include "keys/secret_file.hpp"

#include <fstream>
#include <sstream>

#include "api/request_ids.hpp"
#include "eventsvc/sdk/error.hpp"
#include "eventsvc/toolkit/files.hpp"

namespace eventsvc::host {

std::string load_or_create_secret(const std::filesystem::path& path, std::string_view what) {
  std::error_code error;
  if (!std::filesystem::exists(path, error)) {
    std::filesystem::create_directories(path.parent_path(), error);
    toolkit::replace_file(path, random_hex(32) + "\n", 0600);
  }
  std::ifstream in(path);
  std::stringstream text;
  text << in.rdbuf();
  std::string secret = text.str();
  while (!secret.empty() &&
         (secret.back() == '\n' || secret.back() == '\r' || secret.back() == ' '))
    secret.pop_back();
  if (!in || secret.size() < 32) {
    throw sdk::Error::internal(std::string(what) + " " + path.string() +
                               " cannot be read or is shorter than 32 characters");
  }
  return secret;
}

}  // namespace eventsvc::host
