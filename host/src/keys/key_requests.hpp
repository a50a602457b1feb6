// What creating an API key asks for, checked the same way whoever asks (`eventsvc keys create` and
// the admin listener's POST /admin/keys), and a key's public description as JSON.
#pragma once

#include <optional>
#include <string>

#include "config/host_config.hpp"
#include "eventsvc/sdk/auth.hpp"
#include "eventsvc/sdk/json.hpp"

namespace eventsvc::host {

// A problem with one field of a key request: the field's name (`workspace`, `env`, `scopes`,
// `plan`) and what is wrong with it.
struct KeyRequestProblem {
  std::string field;
  std::string message;
};

// The request's first problem against the config's plans; nullopt when a key can be made of it.
// `environment` is the text asked for (live or test); the request's tenant gets it when valid.
std::optional<KeyRequestProblem> check_key_request(const HostConfig& config,
                                                   std::string_view environment,
                                                   sdk::KeyRequest& request);

// id, workspace, env, scopes, plan, label, created_at and revoked_at (null while active): never
// the secret, which is not stored.
sdk::json::object key_info_json(const sdk::KeyInfo& key);

}  // namespace eventsvc::host
