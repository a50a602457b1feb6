#include "eventsvc/sdk/abi.hpp"

#include <cstring>

namespace eventsvc::sdk {

namespace {
std::string describe(const AbiVersion& version) {
  return std::to_string(version.major) + "." + std::to_string(version.minor) + " (" +
         (version.toolchain != nullptr ? version.toolchain
                                       : "built without the SDK's CMake package: no headers hash") +
         ")";
}
}  // namespace

std::string abi_incompatibility(const AbiVersion& plugin, const AbiVersion& host) {
  const bool same_toolchain = plugin.toolchain != nullptr && host.toolchain != nullptr &&
                              std::strcmp(plugin.toolchain, host.toolchain) == 0;
  if (plugin.major == host.major && plugin.minor <= host.minor && same_toolchain) return {};
  return "ABI version mismatch: got " + describe(plugin) + ", but expected " + describe(host) +
         (plugin.major == host.major && plugin.minor > host.minor ? " or an older minor version"
                                                                  : "");
}

}  // namespace eventsvc::sdk
