// Auth plugins turn a bearer credential into a Principal and manage the credentials they issue.
// Exactly one auth plugin is active. The host calls authenticate() on every request, from many
// threads at once; it must be fast and thread-safe. Key management is called by the CLI
// (`eventsvc keys ...`), possibly while a server using the same data directory runs: a key created
// or revoked there must take effect in the running server without a restart.
#pragma once

#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "eventsvc/sdk/plugin.hpp"
#include "eventsvc/sdk/principal.hpp"
#include "eventsvc/sdk/time.hpp"

namespace eventsvc::sdk {

struct KeyRequest {
  Tenant tenant;
  std::vector<std::string> scopes;
  std::string plan;
  std::string label;
};

struct KeyInfo {
  std::string id;  // public identifier, safe to print and log
  Tenant tenant;
  std::vector<std::string> scopes;
  std::string plan;
  std::string label;
  Millis created_at = 0;
  std::optional<Millis> revoked_at;
  // When the key last authenticated a request (as precisely as the provider records it; the
  // apikey plugin: to the minute, on this server); nullopt when never, or not recorded.
  std::optional<Millis> last_used_at;
};

struct CreatedKey {
  std::string secret;  // the whole key; shown to the operator once, never stored
  KeyInfo info;
};

class AuthProvider : public Plugin {
 public:
  static constexpr PluginKind kKind = PluginKind::auth;

  ~AuthProvider() override;

  // The principal of a valid, unrevoked credential; nullopt for anything else. Must not throw for
  // malformed input.
  virtual std::optional<Principal> authenticate(std::string_view credential) = 0;

  virtual CreatedKey create_key(const KeyRequest& request) = 0;
  virtual std::vector<KeyInfo> list_keys() = 0;
  // False when no key has that id. Revoking a revoked key is not an error.
  virtual bool revoke_key(std::string_view id) = 0;
};

}  // namespace eventsvc::sdk
