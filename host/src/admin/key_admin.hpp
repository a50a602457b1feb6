// Key management on the admin listener (docs/operations.md#keys-over-http): what `eventsvc keys`
// does, for an operator's tools and the console, with the same checks.
//
//   GET    /admin/keys        {"keys": [key, ...]}: every key, revoked ones too; never a secret
//   POST   /admin/keys        {"workspace", "env", "scopes", "plan"?, "label"?}
//                             -> 201 {"secret": "key_...", "key": key}: the secret shown this once
//   DELETE /admin/keys/{id}   -> 200 {"key": key} revoked (again: unchanged); 404 for no such key
//
// Every request carries `Authorization: Bearer <token>`, the token of admin.token_file (created at
// the first start, mode 0600): 401 otherwise. Reading that file takes what running `eventsvc keys`
// takes, access to the data directory, so the listener adds no way in.
#pragma once

#include <string>

#include "config/host_config.hpp"
#include "logging/log_sink.hpp"
#include "modules/module_registry.hpp"
#include "server/admin_server.hpp"

namespace eventsvc::host {

class KeyAdmin {
 public:
  KeyAdmin(const HostConfig& config, ModuleRegistry& modules, LogSink& log, std::string token)
      : config_(config), modules_(modules), log_(log), token_(std::move(token)) {}

  // The answer to a request under /admin/keys.
  Answer answer(const AdminRequest& request) const;

 private:
  bool authorized(std::string_view authorization) const;
  Answer list() const;
  Answer create(std::string_view body) const;
  Answer revoke(std::string_view id) const;

  const HostConfig& config_;
  ModuleRegistry& modules_;
  LogSink& log_;
  std::string token_;
};

}  // namespace eventsvc::host
