#include "api/ingest_endpoint.hpp"

#include "api/request_ids.hpp"
#include "api/validation.hpp"
#include "eventsvc/sdk/error.hpp"
#include "eventsvc/toolkit/digest.hpp"
#include "eventsvc/toolkit/time.hpp"

namespace eventsvc::host {

namespace {

constexpr std::size_t kMaxNameLength = 256;  // type, stream, namespace, site_id, source_id

// The retention an event of the batch must lie within: its stream's when the plan keeps that
// stream for fewer days (an older event would only be removed by the next sweep).
struct RetentionBound {
  sdk::Millis earliest = 0;
  std::string what;  // "the plan's retention of 30 days"
};

RetentionBound retention_bound(const json::value& body, const Plan& plan, sdk::Millis now) {
  int days = plan.retention_days;
  std::string what = "the plan's retention of ";
  const auto* stream = body.is_object() ? body.get_object().if_contains("stream") : nullptr;
  if (stream != nullptr && stream->is_string()) {
    const std::string_view name = stream->get_string();
    if (const int kept = plan.retention_days_of(name); kept != days) {
      days = kept;
      what = "the plan's retention of stream '" + std::string(name) + "', ";
    }
  }
  return {now - days_ms(days), what + std::to_string(days) + " days"};
}

Schema batch_schema(const RetentionBound& retention, sdk::Millis latest,
                    sdk::Millis max_future_skew) {
  auto occurred_at = Schema::string().check(
      [=](const json::value& value, const std::string& path, ValidationErrors& errors) {
        const auto instant = toolkit::parse_rfc3339(value.get_string());
        if (!instant) {
          errors.add(path, "must be an RFC 3339 date-time, e.g. 2026-11-22T08:30:00Z");
        } else if (*instant < retention.earliest) {
          errors.add(path, "is older than " + retention.what);
        } else if (*instant > latest) {
          errors.add(path, "is more than " + std::to_string(max_future_skew / 1000) +
                               " seconds in the future");
        }
      });
  Schema event = Schema::object()
                     .property("id", Schema::string().length(1, kMaxEventIdLength), true)
                     .property("type", Schema::string().length(1, kMaxNameLength), true)
                     .property("occurred_at", std::move(occurred_at), true)
                     .property("data", Schema::any(), true);
  return Schema::object()
      .property("stream", Schema::string().length(1, kMaxNameLength), true)
      .property("events", Schema::array(std::move(event)).items(1, 100), true)
      .property("namespace", Schema::string().length(1, kMaxNameLength))
      .property("site_id", Schema::string().length(1, kMaxNameLength))
      .property("source_id", Schema::string().length(1, kMaxNameLength));
}

std::optional<std::string> optional_string(const json::object& object, std::string_view key) {
  const auto* value = object.if_contains(key);
  if (value == nullptr) return std::nullopt;
  return std::string(value->as_string());
}

}  // namespace

std::string new_receipt_id() {
  return new_random_id("req_");
}

std::string verify_url(const HostConfig& config, std::string_view receipt_id) {
  return config.server.public_base_url + "/v1/receipts/" + std::string(receipt_id);
}

std::size_t IngestEndpoint::max_body_bytes() const {
  return kIngestBodyLimit;
}

ApiResponse IngestEndpoint::handle(const ApiRequest& request) {
  const std::string& key = required_idempotency_key(request.http);
  const json::value body = parse_body(request.body);
  ValidationErrors errors;
  batch_schema(retention_bound(body, request.plan, request.now),
               request.now + config_.max_future_skew, config_.max_future_skew)
      .validate(body, "", errors);
  errors.throw_if_any();

  const json::object& batch = body.get_object();
  sdk::IncomingWrite write;
  write.tenant = request.principal.tenant;
  write.idempotency_key = key;
  write.receipt_id = new_receipt_id();
  write.envelope.stream = batch.at("stream").as_string();
  write.envelope.namespace_name = optional_string(batch, "namespace");
  write.envelope.site_id = optional_string(batch, "site_id");
  write.envelope.source_id = optional_string(batch, "source_id");
  for (const auto& member : batch) {
    const std::string_view key = member.key();
    if (key != "stream" && key != "events" && key != "namespace" && key != "site_id" &&
        key != "source_id") {
      write.envelope.extras[key] = member.value();
    }
  }
  write.received_at = request.now;
  std::vector<std::pair<std::string, std::string>> pairs;
  for (const auto& value : batch.at("events").as_array()) {
    const json::object& event = value.get_object();
    sdk::IncomingEvent incoming;
    incoming.version.id = event.at("id").as_string();
    incoming.version.occurred_at = *toolkit::parse_rfc3339(event.at("occurred_at").as_string());
    incoming.version.digest = toolkit::event_digest(value);
    incoming.event = event;
    pairs.emplace_back(incoming.version.id, incoming.version.digest);
    write.events.push_back(std::move(incoming));
  }
  write.event_set_sha256 = toolkit::event_set_sha256(std::move(pairs));

  sdk::AcceptSummary accepted;
  const auto render = [&](const sdk::AcceptSummary& summary) {
    accepted = summary;
    json::object receipt;
    receipt["receipt_id"] = summary.receipt_id;
    receipt["status"] = "accepted";
    receipt["verification_status"] = summary.verification_available ? "pending" : "unavailable";
    receipt["submitted"] = summary.submitted;
    receipt["accepted"] = summary.accepted;
    receipt["duplicates"] = summary.duplicates;
    receipt["verify_url"] = verify_url(config_, summary.receipt_id);
    receipt["integrity"] = json::object{{"algorithm", toolkit::kDigestAlgorithm},
                                        {"event_set_sha256", write.event_set_sha256}};
    return sdk::to_json(receipt);
  };
  const sdk::AcceptResult result =
      storage_.call([&](sdk::Storage& storage) { return storage.accept(write, render); });
  ApiResponse response{202, result.body, {}, nullptr, result.hold};
  if (result.replayed) {
    response.headers.emplace_back("Idempotent-Replayed", "true");
    metrics_.replayed();
  } else {
    metrics_.ingested(accepted.accepted, accepted.duplicates);
  }
  return response;
}

}  // namespace eventsvc::host
