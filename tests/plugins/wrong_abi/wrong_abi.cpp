// A library claiming a future ABI major version. The host must refuse it before touching anything
// else it exports.
#include "eventsvc/sdk/plugin.hpp"

namespace wrong_abi {

eventsvc::sdk::AbiVersion eventsvc_plugin_abi() {
  return {eventsvc::sdk::kAbiMajor + 1, 0, eventsvc::sdk::kToolchain};
}

// Never called: the ABI check fails first.
const eventsvc::sdk::PluginEntry& eventsvc_plugin_entry() {
  static const eventsvc::sdk::PluginEntry* entry = nullptr;
  return *entry;
}

}  // namespace wrong_abi

BOOST_DLL_ALIAS(wrong_abi::eventsvc_plugin_abi, eventsvc_plugin_abi)
BOOST_DLL_ALIAS(wrong_abi::eventsvc_plugin_entry, eventsvc_plugin_entry)
