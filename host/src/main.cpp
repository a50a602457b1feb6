// eventsvc: the server and its administration commands.
#include <cstdio>
#include <exception>
#include <string>
#include <vector>

#include "cli/commands.hpp"
#include "eventsvc/sdk/error.hpp"

namespace {

constexpr const char* kUsage = R"(usage: eventsvc <command> [options]

commands:
  serve          run the server (--bootstrap-key: create a first key when none exists)
  keys create    --workspace W --env live|test --scopes events:read,events:write[,events:erase]
                 [--plan P] [--label L]         print a new key once
  keys list      [--json]                       list keys (never their secrets)
  keys revoke    ID                             revoke a key
  check-config   validate the config and every enabled plugin's settings
  plugins        [--json]                       list the plugin libraries found and their manifests
  backup         --to DIR                       a consistent copy of the data directory, taken
                                                while the server serves (or while none runs)
  restore        --from DIR [--erasure-ledger FILE]
                                                write a backup out as the (new, empty) data_dir,
                                                then carry out again the ledger's erasures made
                                                after the backup
  retention      [--dry-run] [--json]           remove now the events retention lets go (the
                                                server does it every retention.sweep_every);
                                                --dry-run: only say what would go
  version        print the version

every command takes:
  --config FILE        YAML config (default: the embedded config/eventsvc.yaml)
  --data-dir DIR       override data_dir
  --listen HOST:PORT   override server.listen
  --admin-listen HOST:PORT
                       override admin.listen ("" turns the admin listener off)
)";

}  // namespace

int main(int argc, char** argv) {
  const std::vector<std::string> all(argv + 1, argv + argc);
  if (all.empty() || all[0] == "help" || all[0] == "--help" || all[0] == "-h") {
    std::fputs(kUsage, all.empty() ? stderr : stdout);
    return all.empty() ? 2 : 0;
  }
  const std::string& command = all[0];
  const std::vector<std::string> rest(all.begin() + 1, all.end());
  try {
    if (command == "serve") return eventsvc::host::run_serve(rest);
    if (command == "keys") return eventsvc::host::run_keys(rest);
    if (command == "check-config") return eventsvc::host::run_check_config(rest);
    if (command == "plugins") return eventsvc::host::run_plugins(rest);
    if (command == "backup") return eventsvc::host::run_backup(rest);
    if (command == "restore") return eventsvc::host::run_restore(rest);
    if (command == "retention") return eventsvc::host::run_retention(rest);
    if (command == "version" || command == "--version") {
      std::printf("eventsvc %s\n", EVENTSVC_VERSION);
      return 0;
    }
    std::fprintf(stderr, "eventsvc: unknown command '%s'\n\n%s", command.c_str(), kUsage);
    return 2;
  } catch (const eventsvc::sdk::Error& error) {
    std::fprintf(stderr, "eventsvc: %s\n", error.message().c_str());
    return 1;
  } catch (const std::invalid_argument& error) {
    std::fprintf(stderr, "eventsvc %s: %s\n", command.c_str(), error.what());
    return 2;
  } catch (const std::exception& error) {
    std::fprintf(stderr, "eventsvc: %s\n", error.what());
    return 1;
  }
}
