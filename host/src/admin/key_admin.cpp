#include "admin/key_admin.hpp"

#include <openssl/crypto.h>

#include "admin/admin_answer.hpp"
#include "eventsvc/sdk/strings.hpp"
#include "keys/key_requests.hpp"
#include "server/http_response.hpp"

namespace eventsvc::host {

namespace {

namespace json = sdk::json;

constexpr std::string_view kKeysPath = "/admin/keys";
constexpr std::size_t kMaxLabel = 200;

sdk::Error bad_member(const std::string& member, const std::string& message) {
  return sdk::Error::bad_request(
      member + " " + message,
      {{"errors", json::array{json::object{{"path", "/" + member}, {"message", message}}}}});
}

std::string string_member(const json::object& body, const std::string& member, bool required) {
  const json::value* value = body.if_contains(member);
  if (value == nullptr) {
    if (required) throw bad_member(member, "is required");
    return {};
  }
  if (!value->is_string()) throw bad_member(member, "must be a string");
  return std::string(value->get_string());
}

}  // namespace

Answer KeyAdmin::answer(const AdminRequest& request) const {
  Answer answer;
  try {
    if (!authorized(request.authorization)) {
      throw sdk::Error(401,
                       "key management needs Authorization: Bearer <the admin token>; the "
                       "token is in " +
                           config_.admin.token_file.string());
    }
    if (request.path == kKeysPath) {
      if (request.method == "GET") return list();
      if (request.method == "POST") return create(request.body);
      throw method_not_allowed(request.method, request.path, {"GET", "POST"}, answer.headers);
    }
    const std::string_view id = request.path.substr(kKeysPath.size() + 1);
    if (id.empty() || id.find('/') != std::string_view::npos) {
      throw sdk::Error::not_found("no such page: " + std::string(request.path) +
                                  "; keys are at /admin/keys and /admin/keys/{id}");
    }
    if (request.method == "DELETE") return revoke(id);
    throw method_not_allowed(request.method, request.path, {"DELETE"}, answer.headers);
  } catch (const sdk::Error& error) {
    answer_with(answer, error);
  }
  return answer;
}

bool KeyAdmin::authorized(std::string_view authorization) const {
  constexpr std::string_view kBearer = "Bearer ";
  if (!authorization.starts_with(kBearer)) return false;
  const std::string_view token = authorization.substr(kBearer.size());
  return token.size() == token_.size() &&
         CRYPTO_memcmp(token.data(), token_.data(), token_.size()) == 0;
}

Answer KeyAdmin::list() const {
  const auto keys = modules_.auth().call([](sdk::AuthProvider& auth) { return auth.list_keys(); });
  json::array out;
  for (const auto& key : keys)
    out.emplace_back(key_info_json(key));
  return admin_json(200, {{"keys", std::move(out)}});
}

Answer KeyAdmin::create(std::string_view text) const {
  const json::value parsed = sdk::parse_json(text);
  if (!parsed.is_object()) throw sdk::Error::bad_request("the body must be a JSON object");
  const json::object& body = parsed.get_object();
  for (const auto& member : body) {
    const std::string_view name = member.key();
    if (name != "workspace" && name != "env" && name != "scopes" && name != "plan" &&
        name != "label") {
      throw bad_member(std::string(name),
                       "is not a member of a key request: workspace, env, scopes, plan, label");
    }
  }
  sdk::KeyRequest request;
  request.tenant.workspace = string_member(body, "workspace", true);
  const std::string environment = string_member(body, "env", true);
  const json::value* scopes = body.if_contains("scopes");
  if (scopes == nullptr) throw bad_member("scopes", "is required (a list, which may be empty)");
  if (!scopes->is_array()) throw bad_member("scopes", "must be a list of scopes");
  for (const auto& scope : scopes->get_array()) {
    if (!scope.is_string()) throw bad_member("scopes", "must be a list of strings");
    request.scopes.emplace_back(scope.get_string());
  }
  request.plan = body.contains("plan") ? string_member(body, "plan", true) : "default";
  request.label = string_member(body, "label", false);
  if (request.label.size() > kMaxLabel) {
    throw bad_member("label", "is longer than " + std::to_string(kMaxLabel) + " bytes");
  }
  if (const auto problem = check_key_request(config_, environment, request))
    throw bad_member(problem->field, problem->message);
  const auto created =
      modules_.auth().call([&](sdk::AuthProvider& auth) { return auth.create_key(request); });
  log_.log(sdk::LogLevel::info, "admin",
           "created key " + created.info.id + " for workspace '" + created.info.tenant.workspace +
               "' (" + std::string(sdk::environment_name(created.info.tenant.environment)) +
               "), scopes " + sdk::join(created.info.scopes, ",") + ", plan " + created.info.plan);
  return admin_json(201, {{"secret", created.secret}, {"key", key_info_json(created.info)}});
}

Answer KeyAdmin::revoke(std::string_view id) const {
  const std::string key_id(id);
  const bool found =
      modules_.auth().call([&](sdk::AuthProvider& auth) { return auth.revoke_key(key_id); });
  if (!found) throw sdk::Error::not_found("no key with id '" + key_id + "'");
  log_.log(sdk::LogLevel::info, "admin", "revoked key " + key_id);
  const auto keys = modules_.auth().call([](sdk::AuthProvider& auth) { return auth.list_keys(); });
  for (const auto& key : keys) {
    if (key.id == key_id) return admin_json(200, {{"key", key_info_json(key)}});
  }
  throw sdk::Error::not_found("no key with id '" + key_id + "'");
}

}  // namespace eventsvc::host
