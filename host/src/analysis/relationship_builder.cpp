#include "analysis/relationship_builder.hpp"

#include <algorithm>

#include "eventsvc/toolkit/digest.hpp"
#include "eventsvc/toolkit/field_value.hpp"
#include "eventsvc/toolkit/time.hpp"

namespace eventsvc::host {

void RelationshipBuilder::add(const sdk::Record& record) {
  // Scalar values only: an array or object is not one value to relate.
  std::vector<sdk::json::value> values(fields_.size());
  std::vector<bool> present(fields_.size(), false);
  for (std::size_t i = 0; i < fields_.size(); ++i) {
    const toolkit::FieldValue value = toolkit::resolve(record, fields_[i]);
    if (!value.present()) continue;
    values[i] = value.to_json();
    present[i] = !values[i].is_array() && !values[i].is_object();
  }
  if (fields_.size() == 1) {
    if (present[0]) count({0}, values, record);
    return;
  }
  for (std::size_t i = 0; i < fields_.size(); ++i) {
    for (std::size_t j = i + 1; j < fields_.size(); ++j) {
      if (present[i] && present[j]) count({i, j}, values, record);
    }
  }
}

void RelationshipBuilder::count(const std::vector<std::size_t>& members,
                                const std::vector<sdk::json::value>& values,
                                const sdk::Record& record) {
  sdk::json::array key;
  for (const auto member : members)
    key.emplace_back(fields_[member].text);
  for (const auto member : members)
    key.push_back(values[member]);
  auto [it, inserted] = relationships_.try_emplace(sdk::canonical_json(key));
  Relationship& relationship = it->second;
  if (inserted) {
    for (const auto member : members) {
      relationship.fields.push_back(fields_[member].text);
      relationship.values.push_back(values[member]);
    }
    relationship.first_seen = relationship.last_seen = record.timestamp;
  }
  ++relationship.count;
  relationship.first_seen = std::min(relationship.first_seen, record.timestamp);
  relationship.last_seen = std::max(relationship.last_seen, record.timestamp);
  auto& events = relationship.events;
  const std::pair<sdk::Millis, std::string> event{record.timestamp, record.id};
  if (std::find(events.begin(), events.end(), event) == events.end()) {
    events.insert(std::upper_bound(events.begin(), events.end(), event), event);
    if (events.size() > kRelationshipEventIds) events.pop_back();
  }
}

sdk::json::array RelationshipBuilder::results() const {
  std::vector<const std::pair<const std::string, Relationship>*> ordered;
  for (const auto& entry : relationships_)
    ordered.push_back(&entry);
  std::sort(ordered.begin(), ordered.end(), [](const auto* a, const auto* b) {
    if (a->second.count != b->second.count) return a->second.count > b->second.count;
    if (a->second.first_seen != b->second.first_seen)
      return a->second.first_seen < b->second.first_seen;
    return a->first < b->first;
  });
  if (ordered.size() > limit_) ordered.resize(limit_);
  sdk::json::array out;
  for (const auto* entry : ordered) {
    const Relationship& relationship = entry->second;
    sdk::json::array fields;
    for (const auto& field : relationship.fields)
      fields.emplace_back(field);
    sdk::json::array ids;
    for (const auto& [at, id] : relationship.events)
      ids.emplace_back(id);
    out.emplace_back(
        sdk::json::object{{"fields", std::move(fields)},
                          {"values", relationship.values},
                          {"count", relationship.count},
                          {"first_seen", toolkit::format_rfc3339(relationship.first_seen)},
                          {"last_seen", toolkit::format_rfc3339(relationship.last_seen)},
                          {"event_ids", std::move(ids)}});
  }
  return out;
}

}  // namespace eventsvc::host
