#include "evidence.hpp"

#include <algorithm>
#include <unordered_map>

#include "eventsvc/sdk/digest.hpp"

namespace eventsvc::plugins::context {

namespace {

std::string text_of(const json::value& value) {
  return value.is_string() ? std::string(value.get_string()) : sdk::canonical_json(value);
}

struct NameHash {
  using is_transparent = void;
  std::size_t operator()(std::string_view name) const noexcept {
    return std::hash<std::string_view>{}(name);
  }
};

// Dense ids for distinct strings, in the order first seen, looked up without copying the key.
template <class Info>
class Names {
 public:
  // The id of `name` and the info kept for it, `make_info(name)` making it the first time.
  template <class MakeInfo>
  std::pair<std::uint32_t, Info&> find(std::string_view name, MakeInfo&& make_info) {
    auto it = ids_.find(name);
    if (it == ids_.end()) {
      const auto id = static_cast<std::uint32_t>(infos_.size());
      infos_.push_back(make_info(name));
      it = ids_.emplace(std::string(name), id).first;
      names_.emplace_back(it->first);
    }
    return {it->second, infos_[it->second]};
  }

  // The id of `name`, with a default Info the first time.
  std::uint32_t id(std::string_view name) {
    return find(name, [](std::string_view) { return Info{}; }).first;
  }

  // By id; valid as long as this (map nodes do not move).
  std::string_view name(std::uint32_t id) const { return names_[id]; }

  // The names in order, and for each first-seen id its index in that order.
  std::pair<std::vector<std::string>, std::vector<std::uint32_t>> sorted() const {
    std::vector<std::pair<std::string_view, std::uint32_t>> by_name(ids_.begin(), ids_.end());
    std::sort(by_name.begin(), by_name.end());
    std::vector<std::string> names;
    std::vector<std::uint32_t> rank(by_name.size());
    names.reserve(by_name.size());
    for (const auto& [name, id] : by_name) {
      rank[id] = static_cast<std::uint32_t>(names.size());
      names.emplace_back(name);
    }
    return {std::move(names), std::move(rank)};
  }

 private:
  std::unordered_map<std::string, std::uint32_t, NameHash, std::equal_to<>> ids_;
  std::vector<std::string_view> names_;
  std::vector<Info> infos_;
};

struct Nothing {};

// Distinct values: equal canonical JSON, equal id. A string is keyed by its text behind a quote
// (no other value's canonical JSON starts with one), so the common case builds no JSON.
class Values {
 public:
  std::uint32_t id(const json::value& value) {
    key_.clear();
    if (value.is_string()) {
      key_.push_back('"');
      key_ += value.get_string();
    } else {
      key_ = sdk::canonical_json(value);
    }
    return names_
        .find(key_,
              [&](std::string_view) {
                values_.push_back(value);  // the first of its kind is the one kept
                return Nothing{};
              })
        .first;
  }
  std::vector<json::value> take() { return std::move(values_); }
  // Orders values the same way on every run.
  bool before(std::uint32_t a, std::uint32_t b) const { return names_.name(a) < names_.name(b); }

 private:
  Names<Nothing> names_;
  std::vector<json::value> values_;
  std::string key_;
};

// What a payload or metrics leaf is to the pack.
enum class LeafRole : std::uint8_t {
  attribute,     // in scope: observed
  out_of_scope,  // counted
  ignored,       // a subject field, or inside a named attribute (observed whole, by its path)
};

struct Leaf {
  LeafRole role = LeafRole::ignored;
  std::uint32_t attribute = 0;  // for LeafRole::attribute
};

bool covered_by(std::string_view leaf, const std::vector<std::string>& named) {
  return std::any_of(named.begin(), named.end(), [&](const std::string& attribute) {
    return leaf == attribute || (leaf.size() > attribute.size() && leaf.starts_with(attribute) &&
                                 leaf[attribute.size()] == '.');
  });
}

// Calls `leaf(path, value)` for every scalar leaf below `value` (named `path`), and `too_deep()`
// for each object or array at kMaxLeafDepth.
template <class OnLeaf, class OnTooDeep>
void walk_leaves(const json::value& value, std::string& path, std::size_t depth, OnLeaf& leaf,
                 OnTooDeep& too_deep) {
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

class Gatherer {
 public:
  explicit Gatherer(const sdk::ContextInput& input) : input_(input) {
    evidence_.records = input.records;
    evidence_.exclusions.excluded_by_request = input.excluded_by_request;
    // The subject's own fields identify it; they are neither facts about it nor out of scope.
    for (const auto& field : input.subject_fields)
      subject_fields_.push_back(field.text);
    for (const auto& attribute : input.attributes) {
      if (covered_by(attribute.text, subject_fields_)) continue;
      evidence_.named_attributes.push_back(attribute.text);
      named_.push_back({&attribute, attributes_.id(attribute.text)});
    }
  }

  Evidence gather() && {
    for (std::size_t index = 0; index < input_.records.size(); ++index)
      add(*input_.records[index], static_cast<std::uint32_t>(index));
    sort();
    return std::move(evidence_);
  }

 private:
  const Leaf& leaf(std::string_view path) {
    return leaves_
        .find(path,
              [&](std::string_view name) {
                if (covered_by(name, subject_fields_)) return Leaf{LeafRole::ignored, 0};
                // Naming only the subject's own fields names no attribute: every leaf is in scope.
                if (evidence_.named_attributes.empty())
                  return Leaf{LeafRole::attribute, attributes_.id(name)};
                if (covered_by(name, evidence_.named_attributes)) return Leaf{LeafRole::ignored, 0};
                return Leaf{LeafRole::out_of_scope, 0};
              })
        .second;
  }

  void add(const sdk::Record& record, std::uint32_t index) {
    if (record.verification != sdk::Verification::verified) {
      ++evidence_.exclusions.unverified;
      ++evidence_.unverified;
      return;
    }
    ++evidence_.admitted;
    const std::uint32_t subject = subjects_.id(subject_of(record, input_.subject_fields));
    auto observe = [&](std::uint32_t attribute, const json::value& value) {
      evidence_.observations.push_back(
          {subject, attribute, values_.id(value), index, record.timestamp});
    };
    for (const auto& [field, attribute] : named_) {
      const sdk::FieldValue value = sdk::resolve(record, *field);
      if (value.present()) observe(attribute, value.to_json());
    }
    auto on_leaf = [&](const std::string& path, const json::value& value) {
      const Leaf& role = leaf(path);
      if (role.role == LeafRole::attribute) {
        observe(role.attribute, value);
      } else if (role.role == LeafRole::out_of_scope) {
        ++evidence_.exclusions.out_of_scope;
      }
    };
    auto too_deep = [&] { ++evidence_.exclusions.out_of_scope; };
    for (const auto* root : {&record.payload, &record.metrics}) {
      path_ = root == &record.payload ? "payload" : "metrics";
      walk_leaves(*root, path_, 0, on_leaf, too_deep);
    }
  }

  // Numbers subjects and attributes in name order, and sorts the observations.
  void sort() {
    auto [subjects, subject_rank] = subjects_.sorted();
    auto [attributes, attribute_rank] = attributes_.sorted();
    for (auto& o : evidence_.observations) {
      o.subject = subject_rank[o.subject];
      o.attribute = attribute_rank[o.attribute];
    }
    evidence_.subjects = std::move(subjects);
    evidence_.attributes = std::move(attributes);
    evidence_.values = values_.take();
    const auto& records = input_.records;
    std::sort(evidence_.observations.begin(), evidence_.observations.end(),
              [&](const Observation& a, const Observation& b) {
                if (a.subject != b.subject) return a.subject < b.subject;
                if (a.attribute != b.attribute) return a.attribute < b.attribute;
                if (a.at != b.at) return a.at < b.at;
                if (a.record != b.record) {
                  const int by_id = records[a.record]->id.compare(records[b.record]->id);
                  if (by_id != 0) return by_id < 0;
                }
                return values_.before(a.value, b.value);
              });
  }

  const sdk::ContextInput& input_;
  Evidence evidence_;
  std::vector<std::string> subject_fields_;
  std::vector<std::pair<const sdk::FieldPath*, std::uint32_t>> named_;  // and their attribute ids
  Names<Nothing> subjects_;
  Names<Nothing> attributes_;
  Names<Leaf> leaves_;
  Values values_;
  std::string path_;
};

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
  return Gatherer(input).gather();
}

}  // namespace eventsvc::plugins::context
