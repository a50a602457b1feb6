// Command-line arguments: positionals and --name value / --name=value options.
#pragma once

#include <map>
#include <optional>
#include <set>
#include <string>
#include <vector>

namespace eventsvc::host {

class Arguments {
 public:
  // `flags` take no value; every other option in `options` takes one. Throws std::invalid_argument
  // naming an unknown option or a missing value.
  Arguments(const std::vector<std::string>& args, const std::set<std::string>& options,
            const std::set<std::string>& flags);

  std::optional<std::string> get(const std::string& name) const;
  std::string require(const std::string& name) const;
  bool flag(const std::string& name) const { return flags_.contains(name); }
  const std::vector<std::string>& positionals() const { return positionals_; }

 private:
  std::map<std::string, std::string> values_;
  std::set<std::string> flags_;
  std::vector<std::string> positionals_;
};

}  // namespace eventsvc::host
