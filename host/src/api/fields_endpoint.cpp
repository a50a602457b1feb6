#include "api/fields_endpoint.hpp"

#include <algorithm>
#include <array>
#include <charconv>

#include "api/query_request.hpp"
#include "api/url_filter.hpp"
#include "eventsvc/toolkit/time.hpp"

namespace eventsvc::host {

namespace {

namespace json = sdk::json;

// The JSON types a field's values are counted by; "container": an object or an array at that path
// (whose own leaves are fields of their own).
constexpr std::array<std::string_view, 5> kTypeNames = {"string", "number", "boolean", "null",
                                                        "container"};
constexpr std::size_t kContainerType = 4;

std::size_t type_of(const json::value& value) {
  if (value.is_string()) return 0;
  if (value.is_number()) return 1;
  if (value.is_bool()) return 2;
  if (value.is_null()) return 3;
  return kContainerType;
}

struct Tally {
  std::string_view field;
  std::size_t count = 0;  // events that have the field
  std::array<std::size_t, kTypeNames.size()> types{};
};

std::string parameter(const UrlParameters& parameters, std::string_view name,
                      std::string_view otherwise) {
  const auto it = parameters.find(name);
  return it == parameters.end() ? std::string(otherwise) : it->second;
}

sdk::Millis instant_parameter(const UrlParameters& parameters, std::string_view name,
                              std::string_view otherwise, sdk::Millis now) {
  const std::string text = parameter(parameters, name, otherwise);
  const auto instant = toolkit::parse_time_expression(text, now);
  if (!instant) {
    throw bad_parameter(std::string(name),
                        "must be a time: RFC 3339 or a time expression such as now-24h");
  }
  return *instant;
}

std::size_t sample_of(const UrlParameters& parameters) {
  const auto it = parameters.find("sample");
  if (it == parameters.end()) return kFieldsDefaultSample;
  std::size_t sample = 0;
  const std::string& text = it->second;
  const auto [end, error] = std::from_chars(text.data(), text.data() + text.size(), sample);
  if (error != std::errc() || end != text.data() + text.size() || sample < 1 ||
      sample > kFieldsMaxSample) {
    throw bad_parameter("sample",
                        "must be a whole number from 1 to " + std::to_string(kFieldsMaxSample));
  }
  return sample;
}

}  // namespace

ApiResponse FieldsEndpoint::handle(const ApiRequest& request) {
  const auto started = std::chrono::steady_clock::now();
  const UrlParameters parameters = url_parameters(
      request.http, {"source", "from", "to", "where", "stream", "namespace", "sample"},
      "a fields read");
  const sdk::Millis from = instant_parameter(parameters, "from", "now-24h", request.now);
  const sdk::Millis to = instant_parameter(parameters, "to", "now", request.now);
  if (from > to) throw bad_parameter("from", "is after to");
  const sdk::Millis horizon = retention_horizon(request.plan, request.now);
  check_retention("from", from, horizon, request.plan.retention_days);
  json::object where = url_where(parameters);
  if (where.contains("timestamp")) {
    throw bad_parameter("where", "bounds timestamp: give from and to instead");
  }
  where["timestamp"] =
      json::object{{"gte", toolkit::format_rfc3339(from)}, {"lte", toolkit::format_rfc3339(to)}};
  const std::string source = parameter(parameters, "source", "history");
  if (source != "history" && source != "current")
    throw bad_parameter("source", "must be current or history");
  const json::value body = json::object{{"source", source}, {"where", std::move(where)}};

  // The newest `sample` matches, every canonical field and every leaf of each.
  sdk::CellQuery cells;
  cells.records = parse_query_request(body, QueryShape::export_, request.plan, request.now).read;
  cells.records.order = sdk::Order::desc;
  cells.records.limit = 0;
  cells.records.scan_limit = sample_of(parameters);
  for (const auto field : sdk::kCanonicalFields)
    cells.fields.named.push_back(*sdk::FieldPath::parse(sdk::canonical_field_name(field)));
  cells.fields.every_leaf = true;

  std::map<std::string, Tally, std::less<>> tallies;
  std::size_t events = 0;
  const sdk::ScanStats stats = storage_.call([&](sdk::Storage& storage) {
    return storage.scan_cells(request.principal.tenant, cells, [&](const sdk::CellBlock& block) {
      events += block.rows();
      for (const auto& field : block.fields) {
        Tally* tally = nullptr;
        for (const std::uint32_t row : field.rows) {
          if (row == sdk::FieldCells::kAbsent) continue;
          if (tally == nullptr) tally = &tallies[field.path];
          ++tally->count;
          ++tally->types[row == sdk::FieldCells::kContainer ? kContainerType
                                                            : type_of(field.values[row])];
        }
      }
      return true;
    });
  });

  std::vector<Tally> listed;
  listed.reserve(tallies.size());
  for (auto& [field, tally] : tallies) {
    tally.field = field;
    listed.push_back(tally);
  }
  // The most common first; equally common ones by name.
  std::sort(listed.begin(), listed.end(), [](const Tally& a, const Tally& b) {
    return a.count != b.count ? a.count > b.count : a.field < b.field;
  });
  const std::size_t unlisted = listed.size() > kFieldsListed ? listed.size() - kFieldsListed : 0;
  listed.resize(listed.size() - unlisted);

  json::array fields;
  fields.reserve(listed.size());
  for (const Tally& tally : listed) {
    json::object types;
    for (std::size_t i = 0; i < kTypeNames.size(); ++i) {
      if (tally.types[i] > 0) types[kTypeNames[i]] = tally.types[i];
    }
    fields.emplace_back(
        json::object{{"field", tally.field}, {"count", tally.count}, {"types", std::move(types)}});
  }
  json::object answer;
  answer["fields"] = std::move(fields);
  answer["unlisted"] = unlisted;
  answer["events"] = events;
  answer["complete"] = stats.complete;
  answer["source"] = source;
  answer["from"] = toolkit::format_rfc3339(from);
  answer["to"] = toolkit::format_rfc3339(to);
  answer["elapsed_ms"] = elapsed_ms_since(started);
  return json_answer(answer);
}

}  // namespace eventsvc::host
