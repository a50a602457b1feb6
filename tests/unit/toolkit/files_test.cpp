#include "eventsvc/toolkit/files.hpp"

#include <gtest/gtest.h>
#include <sys/stat.h>

#include <fstream>
#include <sstream>

#include "eventsvc/sdk/error.hpp"
#include "support/temp_dir.hpp"

namespace eventsvc::toolkit {
namespace {

using namespace eventsvc::sdk;

std::string read(const std::filesystem::path& path) {
  std::ostringstream text;
  text << std::ifstream(path).rdbuf();
  return text.str();
}

mode_t mode_of(const std::filesystem::path& path) {
  struct stat info {};
  EXPECT_EQ(::stat(path.c_str(), &info), 0);
  return info.st_mode & 0777;
}

TEST(ReplaceFile, ReplacesWholeWithTheModeAndLeavesNoTemporary) {
  testing::TempDir dir;
  const auto path = dir.path() / "state.json";
  replace_file(path, "first, longer", 0600);
  EXPECT_EQ(read(path), "first, longer");
  EXPECT_EQ(mode_of(path), 0600U);
  replace_file(path, "second");  // each replacement is a new file, with the mode it is given
  EXPECT_EQ(read(path), "second");
  EXPECT_EQ(
      mode_of(path), 0644U & ~[] {
        const mode_t mask = ::umask(0);
        ::umask(mask);
        return mask;
      }());
  EXPECT_FALSE(std::filesystem::exists(dir.path() / "state.json.tmp"));
}

TEST(ReplaceFile, AnUnwritableFileIsA500NamingIt) {
  testing::TempDir dir;
  const auto path = dir.path() / "missing" / "state.json";
  try {
    replace_file(path, "x");
    FAIL() << "wrote into a directory that does not exist";
  } catch (const Error& error) {
    EXPECT_EQ(error.status(), 500);
    EXPECT_EQ(error.message(), "cannot write " + path.string() + ".tmp");
  }
  EXPECT_FALSE(std::filesystem::exists(path));
}

}  // namespace
}  // namespace eventsvc::toolkit
