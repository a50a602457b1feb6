// API-key authentication (DESIGN §2): keys look like key_live_<32 base62>, are stored only as
// SHA-256 digests, compared in constant time, and revocable.
#pragma once

#include "eventsvc/sdk/auth.hpp"
#include "key_store.hpp"
#include "key_use_log.hpp"

namespace eventsvc::plugins::apikey {

class ApiKeyAuth final : public sdk::AuthProvider {
 public:
  static constexpr std::string_view kName = "apikey";
  static const sdk::PluginInfo kInfo;  // with its config table, in api_key_auth.cpp
  explicit ApiKeyAuth(const sdk::PluginContext& context);

  std::optional<sdk::Principal> authenticate(std::string_view credential) override;
  sdk::CreatedKey create_key(const sdk::KeyRequest& request) override;
  std::vector<sdk::KeyInfo> list_keys() override;
  bool revoke_key(std::string_view id) override;

 private:
  std::string word_;
  KeyStore store_;
  KeyUseLog uses_;
};

}  // namespace eventsvc::plugins::apikey
