// A fresh directory under /tmp, removed when the object dies (kept when EVENTSVC_KEEP_TEST_DIRS is
// set, for looking at a failed run).
#pragma once

#include <filesystem>

namespace eventsvc::testing {

class TempDir {
 public:
  TempDir();
  ~TempDir();
  TempDir(const TempDir&) = delete;
  TempDir& operator=(const TempDir&) = delete;

  const std::filesystem::path& path() const { return path_; }

 private:
  std::filesystem::path path_;
};

}  // namespace eventsvc::testing
