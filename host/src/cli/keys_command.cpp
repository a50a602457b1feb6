#include <cstdio>
#include <stdexcept>

#include "cli/commands.hpp"
#include "cli/config_arguments.hpp"
#include "eventsvc/sdk/strings.hpp"
#include "eventsvc/toolkit/time.hpp"
#include "keys/key_requests.hpp"
#include "modules/module_registry.hpp"

namespace eventsvc::host {

namespace {

std::vector<std::string> split_list(const std::string& text) {
  std::vector<std::string> out;
  std::size_t begin = 0;
  while (begin <= text.size()) {
    const std::size_t comma = text.find(',', begin);
    const std::size_t end = comma == std::string::npos ? text.size() : comma;
    if (end > begin) out.push_back(text.substr(begin, end - begin));
    if (comma == std::string::npos) break;
    begin = comma + 1;
  }
  return out;
}

int create(const HostConfig& config, ModuleRegistry& modules, const Arguments& arguments) {
  sdk::KeyRequest request;
  request.tenant.workspace = arguments.require("workspace");
  const std::string environment = arguments.require("env");
  const auto scopes = arguments.get("scopes");
  if (!scopes) throw std::invalid_argument("--scopes is required (comma-separated)");
  request.scopes = split_list(*scopes);
  request.plan = arguments.get("plan").value_or("default");
  request.label = arguments.get("label").value_or("");
  if (const auto problem = check_key_request(config, environment, request))
    throw std::invalid_argument("--" + problem->field + " " + problem->message);
  const auto created =
      modules.auth().call([&](sdk::AuthProvider& auth) { return auth.create_key(request); });
  std::printf("%s\n", created.secret.c_str());
  std::fflush(stdout);
  std::fprintf(stderr,
               "created key %s for workspace '%s' (%s), scopes %s, plan %s. The key above is "
               "shown once and not stored.\n",
               created.info.id.c_str(), created.info.tenant.workspace.c_str(),
               std::string(sdk::environment_name(created.info.tenant.environment)).c_str(),
               sdk::join(created.info.scopes, ",").c_str(), created.info.plan.c_str());
  return 0;
}

int list(ModuleRegistry& modules, bool as_json) {
  const auto keys = modules.auth().call([](sdk::AuthProvider& auth) { return auth.list_keys(); });
  if (as_json) {
    sdk::json::array out;
    for (const auto& key : keys)
      out.emplace_back(key_info_json(key));
    std::printf("%s\n", sdk::to_json(out).c_str());
    return 0;
  }
  std::printf("%-10s %-20s %-5s %-26s %-10s %-24s %-24s %s\n", "ID", "WORKSPACE", "ENV", "SCOPES",
              "PLAN", "CREATED", "LAST USED", "STATUS");
  for (const auto& key : keys) {
    std::printf("%-10s %-20s %-5s %-26s %-10s %-24s %-24s %s\n", key.id.c_str(),
                key.tenant.workspace.c_str(),
                std::string(sdk::environment_name(key.tenant.environment)).c_str(),
                sdk::join(key.scopes, ",").c_str(), key.plan.c_str(),
                toolkit::format_rfc3339(key.created_at).c_str(),
                key.last_used_at ? toolkit::format_rfc3339(*key.last_used_at).c_str() : "never",
                key.revoked_at
                    ? ("revoked " + toolkit::format_rfc3339(*key.revoked_at)).c_str()
                    : (key.label.empty() ? "active" : ("active (" + key.label + ")").c_str()));
  }
  return 0;
}

}  // namespace

int run_keys(const std::vector<std::string>& args) {
  if (args.empty()) throw std::invalid_argument("expected create, list or revoke");
  const std::string& sub = args[0];
  const std::vector<std::string> rest(args.begin() + 1, args.end());
  auto options = kCommonOptions;
  std::set<std::string> flags;
  if (sub == "create") {
    options.insert({"workspace", "env", "scopes", "plan", "label"});
  } else if (sub == "list") {
    flags.insert("json");
  } else if (sub != "revoke") {
    throw std::invalid_argument("unknown keys command '" + sub +
                                "'; expected create, list or revoke");
  }
  const Arguments arguments(rest, options, flags);
  const HostConfig config = config_from(arguments);
  LogSink log;
  auto modules = ModuleRegistry::load(config, log, ModuleRegistry::Selection::auth_only);
  if (sub == "create") return create(config, *modules, arguments);
  if (sub == "list") return list(*modules, arguments.flag("json"));
  if (arguments.positionals().size() != 1) {
    throw std::invalid_argument("usage: eventsvc keys revoke ID");
  }
  const std::string& id = arguments.positionals().front();
  const bool found =
      modules->auth().call([&](sdk::AuthProvider& auth) { return auth.revoke_key(id); });
  if (!found) {
    std::fprintf(stderr, "eventsvc keys revoke: no key with id '%s'\n", id.c_str());
    return 1;
  }
  std::fprintf(stderr, "revoked key %s\n", id.c_str());
  return 0;
}

}  // namespace eventsvc::host
