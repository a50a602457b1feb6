#include "evidence.hpp"

#include <algorithm>
#include <map>
#include <set>

#include "eventsvc/sdk/digest.hpp"

namespace eventsvc::plugins::context {

namespace {

std::string text_of(const json::value& value) {
  return value.is_string() ? std::string(value.get_string()) : sdk::canonical_json(value);
}

// Calls `leaf(path, value)` for every scalar leaf below `root` (named `root_name`), and
// `too_deep()` for each one deeper than kMaxLeafDepth.
void walk_leaves(const json::value& value, std::string& path, std::size_t depth,
                 const std::function<void(const std::string&, const json::value&)>& leaf,
                 const std::function<void()>& too_deep) {
  if (value.is_object() || value.is_array()) {
    if (depth >= kMaxLeafDepth) {
      too_deep();
      return;
    }
    auto descend = [&](std::string_view key, const json::value& child) {
      const std::size_t size = path.size();
      path.push_back('.');
      path += key;
      walk_leaves(child, path, depth + 1, leaf, too_deep);
      path.resize(size);
    };
    if (value.is_object()) {
      for (const auto& member : value.get_object())
        descend(member.key(), member.value());
    } else {
      std::size_t index = 0;
      for (const auto& element : value.get_array())
        descend(std::to_string(index++), element);
    }
    return;
  }
  if (depth > 0) leaf(path, value);
}

bool covered_by(const std::string& leaf, const std::vector<std::string>& named) {
  return std::any_of(named.begin(), named.end(), [&](const std::string& attribute) {
    return leaf == attribute || (leaf.size() > attribute.size() && leaf.starts_with(attribute) &&
                                 leaf[attribute.size()] == '.');
  });
}

// Sorts by (subject, attribute, at, event_id, value_key). Subjects and attributes are few and
// repeated on every observation: they are ranked once, and indices are sorted by the ranks, so the
// sort compares integers and moves no observation until the end.
void sort_observations(std::vector<Observation>& observations) {
  std::map<std::string_view, std::uint32_t> subject_rank;
  std::map<std::string_view, std::uint32_t> attribute_rank;
  for (const auto& observation : observations) {
    subject_rank.emplace(observation.subject, 0);
    attribute_rank.emplace(observation.attribute, 0);
  }
  std::uint32_t rank = 0;
  for (auto& [name, value] : subject_rank)
    value = rank++;
  rank = 0;
  for (auto& [name, value] : attribute_rank)
    value = rank++;
  struct Key {
    std::uint32_t subject;
    std::uint32_t attribute;
    sdk::Millis at;
    std::uint32_t index;
  };
  std::vector<Key> keys;
  keys.reserve(observations.size());
  for (std::uint32_t i = 0; i < observations.size(); ++i) {
    keys.push_back({subject_rank.at(observations[i].subject),
                    attribute_rank.at(observations[i].attribute), observations[i].at, i});
  }
  std::sort(keys.begin(), keys.end(), [&](const Key& a, const Key& b) {
    if (std::tie(a.subject, a.attribute, a.at) != std::tie(b.subject, b.attribute, b.at)) {
      return std::tie(a.subject, a.attribute, a.at) < std::tie(b.subject, b.attribute, b.at);
    }
    const Observation& x = observations[a.index];
    const Observation& y = observations[b.index];
    return std::tie(x.event_id, x.value_key) < std::tie(y.event_id, y.value_key);
  });
  // Put each in place by following the cycles of the permutation: no second copy of them all.
  // Position j takes the observation at keys[j].index; a taken position is marked with itself.
  for (std::uint32_t start = 0; start < keys.size(); ++start) {
    if (keys[start].index == start) continue;
    Observation held = std::move(observations[start]);
    std::uint32_t position = start;
    while (keys[position].index != start) {
      const std::uint32_t from = keys[position].index;
      observations[position] = std::move(observations[from]);
      keys[position].index = position;
      position = from;
    }
    observations[position] = std::move(held);
    keys[position].index = position;
  }
}

}  // namespace

std::string subject_of(const sdk::Record& record, const std::vector<sdk::FieldPath>& fields) {
  if (fields.empty()) return record.id;
  std::string subject;
  for (const auto& field : fields) {
    if (!subject.empty()) subject += " / ";
    subject += text_of(sdk::resolve(record, field).to_json());
  }
  return subject;
}

Evidence gather_evidence(const sdk::ContextInput& input) {
  Evidence evidence;
  evidence.exclusions.excluded_by_request = input.excluded_by_request;
  // The subject's own fields identify it; they are neither facts about it nor out of scope.
  std::vector<std::string> subject_fields;
  for (const auto& field : input.subject_fields)
    subject_fields.push_back(field.text);
  std::vector<const sdk::FieldPath*> attributes;
  for (const auto& attribute : input.attributes) {
    if (covered_by(attribute.text, subject_fields)) continue;
    evidence.named_attributes.push_back(attribute.text);
    attributes.push_back(&attribute);
  }
  std::set<std::string> subjects;
  for (std::size_t index = 0; index < input.records.size(); ++index) {
    const sdk::Record& record = *input.records[index];
    if (record.verification != sdk::Verification::verified) {
      ++evidence.exclusions.unverified;
      ++evidence.unverified;
      continue;
    }
    ++evidence.admitted;
    const std::string subject = subject_of(record, input.subject_fields);
    subjects.insert(subject);
    auto observe = [&](const std::string& attribute, const json::value& value) {
      if (covered_by(attribute, subject_fields)) return;
      evidence.observations.push_back({subject, attribute, value, sdk::canonical_json(value),
                                       record.timestamp, record.id, index});
    };
    auto out_of_scope = [&] { ++evidence.exclusions.out_of_scope; };
    // Naming only the subject's own fields names no attribute: every leaf is in scope then.
    const bool named = !evidence.named_attributes.empty();
    for (const auto* attribute : attributes) {
      const sdk::FieldValue value = sdk::resolve(record, *attribute);
      if (value.present()) observe(attribute->text, value.to_json());
    }
    for (const auto* root : {&record.payload, &record.metrics}) {
      std::string path = root == &record.payload ? "payload" : "metrics";
      walk_leaves(
          *root, path, 0,
          [&](const std::string& leaf, const json::value& value) {
            if (covered_by(leaf, subject_fields)) return;
            if (!named) {
              observe(leaf, value);
            } else if (!covered_by(leaf, evidence.named_attributes)) {
              out_of_scope();
            }
          },
          out_of_scope);
    }
  }
  evidence.subjects.assign(subjects.begin(), subjects.end());
  sort_observations(evidence.observations);
  return evidence;
}

}  // namespace eventsvc::plugins::context
