// The `eventsvc` subcommands. Each returns the process exit code.
#pragma once

#include <set>
#include <string>
#include <vector>

namespace eventsvc::host {

int run_serve(const std::vector<std::string>& args);
int run_keys(const std::vector<std::string>& args);
int run_check_config(const std::vector<std::string>& args);
int run_plugins(const std::vector<std::string>& args);
int run_backup(const std::vector<std::string>& args);
int run_restore(const std::vector<std::string>& args);
int run_retention(const std::vector<std::string>& args);

// --config, --data-dir and --listen, understood by every command.
inline const std::set<std::string> kCommonOptions = {"config", "data-dir", "listen",
                                                     "admin-listen"};

}  // namespace eventsvc::host
