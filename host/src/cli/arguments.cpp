#include "cli/arguments.hpp"

#include <stdexcept>

namespace eventsvc::host {

Arguments::Arguments(const std::vector<std::string>& args, const std::set<std::string>& options,
                     const std::set<std::string>& flags) {
  for (std::size_t i = 0; i < args.size(); ++i) {
    const std::string& arg = args[i];
    if (!arg.starts_with("--")) {
      positionals_.push_back(arg);
      continue;
    }
    std::string name = arg.substr(2);
    std::optional<std::string> value;
    if (const auto eq = name.find('='); eq != std::string::npos) {
      value = name.substr(eq + 1);
      name.resize(eq);
    }
    if (flags.contains(name)) {
      if (value) throw std::invalid_argument("--" + name + " takes no value");
      flags_.insert(name);
      continue;
    }
    if (!options.contains(name)) {
      std::string known;
      for (const auto& option : options)
        known += " --" + option;
      for (const auto& option : flags)
        known += " --" + option;
      std::string message = "unknown option --";
      message += name;
      message += "; known:";
      message += known;
      throw std::invalid_argument(message);
    }
    if (!value) {
      if (i + 1 >= args.size()) throw std::invalid_argument("--" + name + " needs a value");
      value = args[++i];
    }
    values_[name] = *value;
  }
}

std::optional<std::string> Arguments::get(const std::string& name) const {
  const auto it = values_.find(name);
  if (it == values_.end()) return std::nullopt;
  return it->second;
}

std::string Arguments::require(const std::string& name) const {
  auto value = get(name);
  if (!value || value->empty()) throw std::invalid_argument("--" + name + " is required");
  return *value;
}

}  // namespace eventsvc::host
