#include "api/erasure_endpoint.hpp"

#include "api/request_ids.hpp"
#include "api/validation.hpp"
#include "api/where_parser.hpp"
#include "eventsvc/sdk/audit.hpp"
#include "eventsvc/sdk/error.hpp"
#include "eventsvc/toolkit/time.hpp"

namespace eventsvc::host {

namespace {

Schema erasure_schema() {
  return Schema::object()
      .property(
          "ids",
          Schema::array(Schema::string().length(1, kMaxEventIdLength)).items(1, kMaxErasureIds))
      .property("where", Schema::any())
      .property("source", Schema::string().one_of({"current", "history"}))
      .closed()
      .check([](const json::value& value, const std::string& path, ValidationErrors& errors) {
        const json::object& object = value.get_object();
        if (!object.contains("ids") && !object.contains("where")) {
          errors.add(path, "an erasure needs `ids` (event ids), `where` (a condition), or both");
        }
        if (object.contains("source") && !object.contains("where")) {
          errors.add(path + "/source", "says what `where` is evaluated over; there is no `where`");
        }
      });
}

json::value optional_instant(const std::optional<sdk::Millis>& instant) {
  return instant ? json::value(toolkit::format_rfc3339(*instant)) : json::value(nullptr);
}

}  // namespace

std::string new_erasure_id() {
  return new_random_id("era_");
}

std::string erasure_url(const HostConfig& config, std::string_view erasure_id) {
  return config.server.public_base_url + "/v1/erasures/" + std::string(erasure_id);
}

std::string erasure_receipt_body(const HostConfig& config, const sdk::ErasureStatus& status) {
  return sdk::to_json(json::object{{"erasure_id", status.erasure_id},
                                   {"status", sdk::erasure_state_name(status.state)},
                                   {"status_url", erasure_url(config, status.erasure_id)},
                                   {"accepted_at", toolkit::format_rfc3339(status.accepted_at)}});
}

json::object erasure_to_json(const HostConfig& config, const sdk::ErasureStatus& status) {
  json::object body;
  body["erasure_id"] = status.erasure_id;
  body["status"] = sdk::erasure_state_name(status.state);
  body["status_url"] = erasure_url(config, status.erasure_id);
  body["erased_versions"] = status.state == sdk::ErasureState::accepted
                                ? json::value(nullptr)
                                : json::value(status.erased_versions);
  body["request"] = status.request;
  body["key_id"] = status.key_id;
  body["accepted_at"] = toolkit::format_rfc3339(status.accepted_at);
  body["hidden_at"] = optional_instant(status.hidden_at);
  body["purged_at"] = optional_instant(status.purged_at);
  body["failed_at"] = optional_instant(status.failed_at);
  body["reason"] = status.reason.empty() ? json::value(nullptr) : json::value(status.reason);
  return body;
}

sdk::ErasureRequest erasure_request_of(const json::value& body, const sdk::Tenant& tenant,
                                       sdk::Millis now) {
  ValidationErrors errors;
  erasure_schema().validate(body, "", errors);
  if (!body.is_object()) errors.throw_if_any();
  const json::object& object = body.get_object();
  ParsedWhere where;
  if (const auto* raw = object.if_contains("where"); raw != nullptr && errors.empty()) {
    where = parse_where(*raw, "/where", now, errors);
    if (errors.empty() && where.conditions.empty()) {
      errors.add("/where", "names no condition: an erasure of every event is not a condition");
    }
  }
  errors.throw_if_any();

  sdk::ErasureRequest erasure;
  erasure.tenant = tenant;
  if (const auto* ids = object.if_contains("ids")) {
    for (const auto& id : ids->get_array())
      erasure.ids.emplace_back(id.get_string());
  }
  erasure.source = object.contains("source") && object.at("source") == "current"
                       ? sdk::Source::current
                       : sdk::Source::history;
  erasure.where = std::move(where.conditions);
  erasure.request = object;
  erasure.received_at = now;
  return erasure;
}

ApiResponse EraseEndpoint::handle(const ApiRequest& request) {
  const std::string& key = required_idempotency_key(request.http);
  const json::value body = parse_body(request.body);
  sdk::ErasureRequest erasure = erasure_request_of(body, request.principal.tenant, request.now);
  erasure.idempotency_key = key;
  erasure.erasure_id = new_erasure_id();
  erasure.key_id = request.principal.key_id;

  const auto render = [&](const sdk::ErasureStatus& status) {
    return erasure_receipt_body(config_, status);
  };
  const sdk::AcceptResult result =
      storage_.call([&](sdk::Storage& storage) { return storage.erase(erasure, render); });
  const json::value answered = sdk::parse_json(result.body);
  const std::string erasure_id(answered.at("erasure_id").as_string());
  // A replay too (its first answer may have failed here, after the erasure was durable), as
  // first received: `where`'s time expressions are resolved against that instant again.
  if (ledger_ != nullptr) {
    const auto accepted_at = toolkit::parse_rfc3339(answered.at("accepted_at").as_string());
    ledger_->record({erasure_id, erasure.tenant, key, erasure.key_id,
                     accepted_at.value_or(erasure.received_at), body});
  }
  audit(request, body, erasure_id, result.replayed);
  ApiResponse response{202, result.body, {}, nullptr};
  if (result.replayed) response.headers.emplace_back("Idempotent-Replayed", "true");
  return response;
}

void EraseEndpoint::audit(const ApiRequest& request, const json::value& body,
                          std::string_view erasure_id, bool replayed) const {
  if (!audit_ || replayed) return;  // a replay erased nothing new
  const json::object context{{"erasure_id", erasure_id}};
  audit_.call([&](sdk::AuditSink& audit_sink) {
    return audit_sink.record({.principal = request.principal,
                              .operation = "erasure",
                              .request = body,
                              .context = context,
                              .at = request.now,
                              .always = true});
  });
}

ApiResponse ErasureStatusEndpoint::handle(const ApiRequest& request) {
  const std::string& id = request.path_params.at(0);
  if (!is_random_id(id, "era_")) {
    throw sdk::Error::bad_request(
        "invalid erasure id: expected era_ followed by 16 lowercase hex digits",
        {{"errors", json::array{json::object{{"path", "erasureId"},
                                             {"message", "must match ^era_[a-f0-9]{16}$"}}}}});
  }
  const auto status = storage_.call(
      [&](sdk::Storage& storage) { return storage.erasure(request.principal.tenant, id); });
  if (!status) {
    throw sdk::Error::not_found("no erasure " + id + " in this workspace and environment");
  }
  return json_answer(erasure_to_json(config_, *status));
}

}  // namespace eventsvc::host
