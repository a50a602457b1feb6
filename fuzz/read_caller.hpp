// What a fuzz target that drives a read endpoint holds besides the endpoint: an empty storage, the
// host's default config and plan, a reading caller, the request head it fills in, and a cursor
// key.
#pragma once

#include <string>

#include "api/page_cursor.hpp"
#include "config/host_config.hpp"
#include "empty_storage.hpp"
#include "modules/module.hpp"
#include "server/http_message.hpp"

namespace eventsvc::fuzz {

struct ReadCaller {
  explicit ReadCaller(std::string method)
      : storage_module{&storage, "storage plugin 'none'"},
        principal(fuzz_principal({std::string(sdk::kScopeRead)})) {
    plan.name = "default";
    head.method = std::move(method);
  }

  EmptyStorage storage;
  host::Module<sdk::Storage> storage_module;
  host::HostConfig config;
  host::Plan plan;
  sdk::Principal principal;
  host::RequestHead head;
  host::CursorSeal seal{std::string(32, 'f')};
};

}  // namespace eventsvc::fuzz
