#include "api_key_auth.hpp"

#include <openssl/crypto.h>

#include <algorithm>
#include <regex>

#include "api_key.hpp"
#include "eventsvc/sdk/error.hpp"
#include "eventsvc/toolkit/digest.hpp"
#include "eventsvc/toolkit/time.hpp"

namespace eventsvc::plugins::apikey {

namespace {

constexpr sdk::ConfigKey kConfig[] = {
    sdk::ConfigKey::string("key_word", "Visible prefix of new keys (1-16 lowercase letters/digits)")
        .defaults_to(R"("key")"),
    sdk::ConfigKey::string("keys_file", "Key file, relative to the instance's data directory")
        .defaults_to(R"("keys.json")"),
};

}  // namespace

const sdk::PluginInfo ApiKeyAuth::kInfo{
    "1.0.0",
    "Bearer API keys <word>_<live|test>_<secret>, stored as SHA-256 digests in a 0600 file",
    kConfig};

ApiKeyAuth::ApiKeyAuth(const sdk::PluginContext& context)
    : word_(context.config.get_string("key_word")),
      store_(context.data_dir / context.config.get_string("keys_file"),
             [logger = context.logger](const std::string& problem) { logger->error(problem); }),
      uses_(context.data_dir / "keys-last-used.json") {
  if (!valid_key_word(word_)) {
    context.config.fail("key_word",
                        "must be 1-16 lowercase letters or digits, starting with a letter");
  }
  try {
    store_.load();
  } catch (const sdk::Error& error) {
    context.config.fail("keys_file", error.message());
  }
}

std::optional<sdk::Principal> ApiKeyAuth::authenticate(std::string_view credential) {
  const auto parsed = parse_api_key(credential);
  if (!parsed || parsed->word != word_) return std::nullopt;
  const auto keys = store_.snapshot();
  const auto it = keys->find(std::string(parsed->id()));
  if (it == keys->end()) return std::nullopt;
  const StoredKey& stored = it->second;
  const std::string digest = toolkit::sha256_hex(credential);
  if (digest.size() != stored.sha256.size() ||
      CRYPTO_memcmp(digest.data(), stored.sha256.data(), digest.size()) != 0) {
    return std::nullopt;
  }
  if (stored.info.revoked_at || stored.info.tenant.environment != parsed->environment) {
    return std::nullopt;
  }
  uses_.used(stored.info.id, toolkit::now_millis());
  return sdk::Principal{stored.info.tenant, stored.info.scopes, stored.info.plan, stored.info.id};
}

sdk::CreatedKey ApiKeyAuth::create_key(const sdk::KeyRequest& request) {
  static const std::regex kWorkspace("[A-Za-z0-9][A-Za-z0-9._-]{0,63}");
  if (!std::regex_match(request.tenant.workspace, kWorkspace)) {
    throw sdk::Error::bad_request("workspace must be 1-64 letters, digits, '.', '_' or '-'");
  }
  for (const auto& scope : request.scopes) {
    if (!sdk::is_known_scope(scope)) throw sdk::Error::bad_request("unknown scope '" + scope + "'");
  }
  sdk::CreatedKey created;
  store_.modify([&](KeyIndex& keys) {
    std::string key;
    std::string id;
    do {
      key = generate_api_key(word_, request.tenant.environment);
      id = std::string(parse_api_key(key)->id());
    } while (keys.contains(id));
    StoredKey stored;
    stored.info.id = id;
    stored.info.tenant = request.tenant;
    stored.info.scopes = request.scopes;
    std::sort(stored.info.scopes.begin(), stored.info.scopes.end());
    stored.info.scopes.erase(std::unique(stored.info.scopes.begin(), stored.info.scopes.end()),
                             stored.info.scopes.end());
    stored.info.plan = request.plan;
    stored.info.label = request.label;
    stored.info.created_at = toolkit::now_millis();
    stored.sha256 = toolkit::sha256_hex(key);
    created = {key, stored.info};
    keys.emplace(stored.info.id, std::move(stored));
  });
  return created;
}

std::vector<sdk::KeyInfo> ApiKeyAuth::list_keys() {
  const auto keys = store_.snapshot();
  std::vector<sdk::KeyInfo> out;
  for (const auto& [id, key] : *keys) {
    out.push_back(key.info);
    out.back().last_used_at = uses_.last_used(id);
  }
  std::sort(out.begin(), out.end(), [](const auto& a, const auto& b) {
    return a.created_at != b.created_at ? a.created_at < b.created_at : a.id < b.id;
  });
  return out;
}

bool ApiKeyAuth::revoke_key(std::string_view id) {
  bool found = false;
  store_.modify([&](KeyIndex& keys) {
    const auto it = keys.find(std::string(id));
    if (it == keys.end()) return;
    found = true;
    if (!it->second.info.revoked_at) it->second.info.revoked_at = toolkit::now_millis();
  });
  return found;
}

}  // namespace eventsvc::plugins::apikey
