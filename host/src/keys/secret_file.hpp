// A secret the server keeps in a file of its own, readable by its user only: the key that seals
// paging cursors, the admin listener's token. Whoever can read the file can already read the data
// directory; a cluster's servers share it by sharing the file.
#pragma once

#include <filesystem>
#include <string>
#include <string_view>

namespace eventsvc::host {

// The file's text without trailing white space; when the file is absent, first writes 32 random
// bytes in hex to it (mode 0600, its directory created). Error 500 naming `what` when it cannot be
// read or holds fewer than 32 characters.
std::string load_or_create_secret(const std::filesystem::path& path, std::string_view what);

}  // namespace eventsvc::host
