#include "store/erasure_formats.hpp"

#include "store/stored_formats.hpp"

namespace eventsvc::plugins::rocksdb_storage {

namespace json = sdk::json;

namespace {

constexpr std::string_view kOrderStart = R"({"erase":)";
const std::string kStatusPrefix = "erasure/";

json::value optional_instant(const std::optional<sdk::Millis>& instant) {
  return instant ? json::value(*instant) : json::value(nullptr);
}

std::optional<sdk::Millis> instant_at(const json::object& object, std::string_view key) {
  const auto* value = object.if_contains(key);
  if (value == nullptr || value->is_null()) return std::nullopt;
  return value->to_number<sdk::Millis>();
}

}  // namespace

ErasureOrder erasure_order_of(const sdk::ErasureRequest& request) {
  return {request.tenant, request.erasure_id, request.ids,
          request.source, request.where,      request.received_at};
}

bool is_erasure_order(std::string_view value) {
  return value.starts_with(kOrderStart);
}

std::string encode_erasure_order(const ErasureOrder& order) {
  json::array ids;
  for (const auto& id : order.ids)
    ids.emplace_back(id);
  json::array where;
  for (const auto& condition : order.where) {
    where.emplace_back(json::array{json::value(condition.field.text),
                                   json::value(sdk::op_name(condition.op)), condition.operand});
  }
  // "erase" first: is_erasure_order() tells an erasure from a write by its first bytes.
  const json::object object{{"erase", order.erasure_id},
                            {"w", order.tenant.workspace},
                            {"e", sdk::environment_name(order.tenant.environment)},
                            {"ids", std::move(ids)},
                            {"src", sdk::source_name(order.source)},
                            {"where", std::move(where)},
                            {"at", order.received_at}};
  return sdk::to_json(object);
}

ErasureOrder decode_erasure_order(std::string_view value) {
  json::object object = parse_object(value, "erasure");
  ErasureOrder order;
  try {
    order.erasure_id = object.at("erase").as_string();
    order.tenant.workspace = object.at("w").as_string();
    const auto environment = sdk::parse_environment(object.at("e").as_string());
    if (!environment) damaged_value("erasure");
    order.tenant.environment = *environment;
    for (const auto& id : object.at("ids").as_array())
      order.ids.emplace_back(id.as_string());
    order.source =
        object.at("src").as_string() == "current" ? sdk::Source::current : sdk::Source::history;
    for (auto& entry : object.at("where").as_array()) {
      auto& parts = entry.as_array();
      auto field = sdk::FieldPath::parse(parts.at(0).as_string());
      const auto op = sdk::parse_op(parts.at(1).as_string());
      if (!field || !op) damaged_value("erasure");
      order.where.push_back({std::move(*field), *op, std::move(parts.at(2))});
    }
    order.received_at = object.at("at").to_number<sdk::Millis>();
  } catch (const std::exception&) {
    damaged_value("erasure");
  }
  return order;
}

bool is_erasure_id(std::string_view id) {
  return id.starts_with("era_");
}

std::string erasure_status_key(std::string_view tenant, std::string_view erasure_id) {
  std::string key = kStatusPrefix;
  key += tenant;
  key += erasure_id;
  return key;
}

std::string encode_erasure_status(const sdk::ErasureStatus& status) {
  const json::object object{{"id", status.erasure_id},
                            {"state", static_cast<int>(status.state)},
                            {"n", status.erased_versions},
                            {"key", status.key_id},
                            {"req", status.request},
                            {"why", status.reason},
                            {"acc", status.accepted_at},
                            {"hid", optional_instant(status.hidden_at)},
                            {"pur", optional_instant(status.purged_at)},
                            {"fail", optional_instant(status.failed_at)}};
  return sdk::to_json(object);
}

sdk::ErasureStatus decode_erasure_status(std::string_view value) {
  json::object object = parse_object(value, "erasure state");
  sdk::ErasureStatus status;
  try {
    status.erasure_id = object.at("id").as_string();
    const auto state = object.at("state").to_number<int>();
    if (state < 0 || state > static_cast<int>(sdk::ErasureState::failed))
      damaged_value("erasure state");
    status.state = static_cast<sdk::ErasureState>(state);
    status.erased_versions = object.at("n").to_number<std::size_t>();
    status.key_id = object.at("key").as_string();
    status.request = std::move(object.at("req").as_object());
    status.reason = object.at("why").as_string();
    status.accepted_at = object.at("acc").to_number<sdk::Millis>();
    status.hidden_at = instant_at(object, "hid");
    status.purged_at = instant_at(object, "pur");
    status.failed_at = instant_at(object, "fail");
  } catch (const std::exception&) {
    damaged_value("erasure state");
  }
  return status;
}

std::string erasure_idempotency_key(std::string_view key) {
  std::string prefixed =
      "\x1f"
      "erasure ";
  prefixed += key;
  return prefixed;
}

}  // namespace eventsvc::plugins::rocksdb_storage
