// Audit plugins keep private traces of sampled analyze requests, and of every erasure. When a
// request is sampled the plugin stores its trace and returns an id, which the host puts into the
// Context Pack as `audit_trace_id`. No endpoint serves traces. At most one audit plugin is active.
#pragma once

#include <optional>
#include <string>
#include <string_view>

#include "eventsvc/sdk/json.hpp"
#include "eventsvc/sdk/plugin.hpp"
#include "eventsvc/sdk/principal.hpp"
#include "eventsvc/sdk/time.hpp"

namespace eventsvc::sdk {

struct AuditEvent {
  const Principal& principal;
  std::string_view operation;   // "analyze", "erasure"
  const json::value& request;   // the validated request body
  const json::object& context;  // the Context Pack as answered (without audit_trace_id), or
                                // what the request made (an erasure: its erasure_id)
  Millis at = 0;
  bool always = false;  // recorded whatever the sample rate (erasures)
};

class AuditSink : public Plugin {
 public:
  static constexpr PluginKind kKind = PluginKind::audit;

  ~AuditSink() override;

  // The trace id when this request was sampled and its trace stored; nullopt otherwise.
  virtual std::optional<std::string> record(const AuditEvent& event) = 0;
};

}  // namespace eventsvc::sdk
