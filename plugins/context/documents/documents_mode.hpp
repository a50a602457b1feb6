// `documents` Context Pack mode: whole source records in the answer's order until the token budget
// is spent (API-SPEC 2.8, DESIGN §6).
#pragma once

#include "eventsvc/sdk/context_mode.hpp"

namespace eventsvc::plugins::context {

class DocumentsMode final : public sdk::ContextMode {
 public:
  static constexpr std::string_view kName = "documents";
  static constexpr sdk::PluginInfo kInfo{
      "1.0.0", "Whole source records in result order until the token budget"};
  explicit DocumentsMode(const sdk::PluginContext&) {}

  std::string_view mode() const override { return kName; }
  sdk::ContextOutput build(const sdk::ContextInput& input) const override;
};

}  // namespace eventsvc::plugins::context
