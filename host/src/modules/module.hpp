// A loaded plugin as the host uses it: the interface pointer plus a label for error messages.
// Every call into a plugin goes through call(), so whatever a plugin throws reaches the client as a
// clean error body naming the module, never as a crash.
#pragma once

#include <string>
#include <string_view>
#include <utility>

#include "eventsvc/sdk/error.hpp"

namespace eventsvc::host {

template <class F>
decltype(auto) call_plugin(std::string_view label, F&& function) {
  try {
    return std::forward<F>(function)();
  } catch (const sdk::Error&) {
    throw;
  } catch (const std::exception& error) {
    throw sdk::Error::internal(std::string(label) + " failed: " + error.what());
  } catch (...) {
    throw sdk::Error::internal(std::string(label) + " failed with an unknown exception");
  }
}

template <class Interface>
struct Module {
  Interface* plugin = nullptr;
  std::string label;  // e.g. "storage plugin 'rocksdb'"

  explicit operator bool() const { return plugin != nullptr; }

  template <class F>
  decltype(auto) call(F&& function) const {
    return call_plugin(label, [&]() -> decltype(auto) { return function(*plugin); });
  }
};

}  // namespace eventsvc::host
