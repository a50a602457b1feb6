#include "support/temp_dir.hpp"

#include <cstdlib>
#include <stdexcept>
#include <string>

namespace eventsvc::testing {

TempDir::TempDir() {
  std::string pattern = (std::filesystem::temp_directory_path() / "eventsvc-test-XXXXXX").string();
  if (::mkdtemp(pattern.data()) == nullptr) throw std::runtime_error("mkdtemp failed");
  path_ = pattern;
}

TempDir::~TempDir() {
  if (std::getenv("EVENTSVC_KEEP_TEST_DIRS") != nullptr) return;
  std::error_code ec;
  std::filesystem::remove_all(path_, ec);
}

}  // namespace eventsvc::testing
