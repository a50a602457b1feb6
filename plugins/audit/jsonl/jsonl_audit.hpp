// Private audit traces of sampled analyze requests, one JSON line each in a file per UTC day under
// the instance's data directory (mode 0600). No endpoint serves them; operators read the files.
#pragma once

#include <mutex>
#include <random>

#include "eventsvc/sdk/audit.hpp"

namespace eventsvc::plugins::audit {

class JsonlAudit final : public sdk::AuditSink {
 public:
  static constexpr std::string_view kName = "jsonl";
  static const sdk::PluginInfo kInfo;  // with its config table, in jsonl_audit.cpp
  explicit JsonlAudit(const sdk::PluginContext& context);

  std::optional<std::string> record(const sdk::AuditEvent& event) override;

 private:
  std::filesystem::path directory_;
  double sample_rate_;
  std::mutex mutex_;
  std::mt19937_64 random_;
};

}  // namespace eventsvc::plugins::audit
