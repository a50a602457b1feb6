#include "documents_mode.hpp"

#include "eventsvc/toolkit/context_pack.hpp"
#include "eventsvc/toolkit/record_json.hpp"

namespace eventsvc::plugins::context {

namespace json = sdk::json;

namespace {

json::object packet(const sdk::ContextInput& input, const json::array& documents) {
  json::array ids;
  for (const auto& document : documents)
    ids.push_back(document.at("id"));
  const std::size_t candidates = input.results.size();
  json::object context;
  context["schema_version"] = sdk::kContextSchemaVersion;
  context["mode"] = DocumentsMode::kName;
  context["token_budget"] = input.request.token_budget;
  context["tokens_used"] = 0;
  context["documents"] = documents;
  context["omitted"] = candidates - documents.size();
  context["proof"] =
      json::object{{"complete", input.scan_complete && documents.size() == candidates},
                   {"event_ids", std::move(ids)}};
  return context;
}

}  // namespace

sdk::ContextOutput DocumentsMode::build(const sdk::ContextInput& input) const {
  const std::size_t candidates = input.results.size();
  const std::size_t budget = input.request.token_budget;
  json::array documents;
  // Fill greedily by size, then trim against the exact estimate of the whole packet.
  std::size_t bytes = sdk::to_json(packet(input, documents)).size() + 16;
  for (std::size_t i = 0; i < candidates; ++i) {
    json::object document = toolkit::record_to_json(*input.results[i]);
    const std::size_t cost = sdk::to_json(document).size() + input.results[i]->id.size() + 4;
    if (toolkit::estimate_tokens_of_json_text(bytes + cost) > budget) break;
    bytes += cost;
    documents.emplace_back(std::move(document));
  }
  json::object context = packet(input, documents);
  while (toolkit::settle_token_count(context, "tokens_used") > budget && !documents.empty()) {
    documents.pop_back();
    context = packet(input, documents);
  }
  return {std::move(context), {}};
}

}  // namespace eventsvc::plugins::context
