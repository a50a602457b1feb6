#include "api/receipt_endpoint.hpp"

#include "api/ingest_endpoint.hpp"
#include "api/request_ids.hpp"
#include "eventsvc/sdk/error.hpp"
#include "eventsvc/toolkit/digest.hpp"
#include "eventsvc/toolkit/time.hpp"

namespace eventsvc::host {

ApiResponse ReceiptEndpoint::handle(const ApiRequest& request) {
  const std::string& id = request.path_params.at(0);
  if (!is_random_id(id, "req_")) {
    throw sdk::Error::bad_request(
        "invalid receipt id: expected req_ followed by 16 lowercase hex digits",
        {{"errors", sdk::json::array{sdk::json::object{
                        {"path", "receiptId"}, {"message", "must match ^req_[a-f0-9]{16}$"}}}}});
  }
  const auto receipt = storage_.call(
      [&](sdk::Storage& storage) { return storage.receipt(request.principal.tenant, id); });
  if (!receipt) {
    throw sdk::Error::not_found("no receipt " + id +
                                " in this workspace and environment (receipts are kept 24 hours)");
  }
  sdk::json::array conflicts;
  for (const auto& conflict : receipt->conflicts) {
    conflicts.emplace_back(
        sdk::json::object{{"id", conflict.id},
                          {"occurred_at", toolkit::format_rfc3339(conflict.occurred_at)},
                          {"submitted_digest", conflict.submitted_digest},
                          {"stored_digest", conflict.stored_digest.empty()
                                                ? sdk::json::value(nullptr)
                                                : sdk::json::value(conflict.stored_digest)}});
  }
  sdk::json::object body;
  body["receipt_id"] = receipt->receipt_id;
  body["status"] = sdk::receipt_state_name(receipt->state);
  body["submitted"] = receipt->submitted;
  body["accepted"] = receipt->accepted;
  body["duplicates"] = receipt->duplicates;
  body["verify_url"] = verify_url(config_, receipt->receipt_id);
  body["integrity"] = sdk::json::object{{"algorithm", toolkit::kDigestAlgorithm},
                                        {"event_set_sha256", receipt->event_set_sha256}};
  body["verified_events"] = receipt->verified_events;
  body["conflicts"] = std::move(conflicts);
  body["created_at"] = toolkit::format_rfc3339(receipt->created_at);
  body["updated_at"] = toolkit::format_rfc3339(receipt->updated_at);
  body["expires_at"] = toolkit::format_rfc3339(receipt->expires_at);
  return json_answer(body);
}

}  // namespace eventsvc::host
