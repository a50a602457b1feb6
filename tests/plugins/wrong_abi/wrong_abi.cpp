// A library built against other SDK headers (another hash). The host must refuse it before
// touching anything else it exports.
#include "eventsvc/sdk/plugin.hpp"

namespace wrong_abi {

eventsvc::sdk::AbiVersion eventsvc_plugin_abi() {
  return {eventsvc::sdk::kAbiMajor, eventsvc::sdk::kAbiMinor,
          EVENTSVC_SDK_STDLIB
          "/boost-" EVENTSVC_SDK_STRINGIFY(BOOST_VERSION) "/sdk-0000000000000000"};
}

// Never called: the ABI check fails first.
const eventsvc::sdk::PluginEntry& eventsvc_plugin_entry() {
  static const eventsvc::sdk::PluginEntry* entry = nullptr;
  return *entry;
}

}  // namespace wrong_abi

BOOST_DLL_ALIAS(wrong_abi::eventsvc_plugin_abi, eventsvc_plugin_abi)
BOOST_DLL_ALIAS(wrong_abi::eventsvc_plugin_entry, eventsvc_plugin_entry)
