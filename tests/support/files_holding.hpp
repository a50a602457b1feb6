// The byte search behind the purge proofs: which files under a directory hold a marker string
// anywhere in their bytes (read while a server may be writing; files that vanish are skipped).
#pragma once

#include <filesystem>
#include <fstream>
#include <iterator>
#include <string>
#include <vector>

namespace eventsvc::testing {

inline std::vector<std::string> files_holding(const std::filesystem::path& dir,
                                              const std::string& marker) {
  std::vector<std::string> holding;
  std::error_code error;
  for (std::filesystem::recursive_directory_iterator it(dir, error), end; it != end;
       it.increment(error)) {
    if (error || !it->is_regular_file(error)) continue;
    std::ifstream in(it->path(), std::ios::binary);
    const std::string bytes((std::istreambuf_iterator<char>(in)), {});
    if (bytes.find(marker) != std::string::npos) holding.push_back(it->path().string());
  }
  return holding;
}

}  // namespace eventsvc::testing
