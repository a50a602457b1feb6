#include "eventsvc/sdk/record.hpp"

namespace eventsvc::sdk {

std::string_view verification_name(Verification verification) {
  switch (verification) {
    case Verification::pending:
      return "pending";
    case Verification::verified:
      return "verified";
    case Verification::conflict:
      return "conflict";
  }
  return "pending";
}

json::object record_to_json(const Record& record) {
  json::object out;
  out.reserve(16);
  out["id"] = record.id;
  out["type"] = record.type;
  out["stream"] = record.stream;
  if (record.namespace_name) out["namespace"] = *record.namespace_name;
  if (record.site_id) out["site_id"] = *record.site_id;
  if (record.source_id) out["source_id"] = *record.source_id;
  out["timestamp"] = format_rfc3339(record.timestamp);
  out["ingested_at"] = format_rfc3339(record.ingested_at);
  out["receipt_id"] = record.receipt_id;
  out["payload"] = record.payload;
  if (record.metrics.is_object()) out["metrics"] = record.metrics;
  out["attributes"] = record.attributes;
  if (!record.envelope.empty()) out["envelope"] = record.envelope;
  out["proof_digest"] = record.proof_digest;
  out["verification"] = verification_name(record.verification);
  return out;
}

}  // namespace eventsvc::sdk
