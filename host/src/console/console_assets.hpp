// The built console's files (console/, bundled at build time), compiled in by
// host/embed_console.cmake.
#pragma once

#include <span>
#include <string_view>

namespace eventsvc::host {

struct ConsoleAsset {
  std::string_view path;  // relative to /console/: "index.html", "assets/index-<hash>.js"
  std::string_view bytes;
};

std::span<const ConsoleAsset> console_assets();

}  // namespace eventsvc::host
