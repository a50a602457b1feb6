#include "evidence.hpp"

#include <algorithm>
#include <bit>
#include <unordered_map>

#include "eventsvc/toolkit/cells.hpp"
#include "eventsvc/toolkit/context_pack.hpp"
#include "eventsvc/toolkit/digest.hpp"

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
  std::size_t size() const { return names_.size(); }

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
// (no other value's canonical JSON starts with one), so the common case builds no JSON; a number
// seen before is found by its bits, so readings that repeat build none either.
class Values {
 public:
  std::uint32_t id(const json::value& value) {
    if (value.is_int64())
      return by_bits(integers_, std::bit_cast<std::uint64_t>(value.get_int64()), value);
    if (value.is_double())
      return by_bits(doubles_, std::bit_cast<std::uint64_t>(value.get_double()), value);
    return by_text(value);
  }
  std::vector<json::value> take() { return std::move(values_); }
  // Orders values the same way on every run.
  bool before(std::uint32_t a, std::uint32_t b) const { return names_.name(a) < names_.name(b); }

 private:
  std::uint32_t by_bits(std::unordered_map<std::uint64_t, std::uint32_t>& known, std::uint64_t bits,
                        const json::value& value) {
    const auto [it, added] = known.try_emplace(bits, 0);
    if (added) it->second = by_text(value);  // 1 and 1.0 are one value
    return it->second;
  }
  std::uint32_t by_text(const json::value& value) {
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

  Names<Nothing> names_;
  std::unordered_map<std::uint64_t, std::uint32_t> integers_;
  std::unordered_map<std::uint64_t, std::uint32_t> doubles_;
  std::vector<json::value> values_;
  std::string key_;
};

}  // namespace

std::vector<std::string> unit_fields_of(std::string_view path) {
  const auto dot = path.rfind('.');
  if (dot == std::string_view::npos) return {};
  const std::string_view parent = path.substr(0, dot);
  const std::string_view name = path.substr(dot + 1);
  std::string own(path);
  own += "_unit";
  std::string keyed(parent);
  keyed += ".units.";
  keyed += name;
  return {own, keyed, std::string(parent) + ".unit", std::string(parent) + ".units"};
}

bool is_unit_field(std::string_view path) {
  const auto dot = path.rfind('.');
  if (dot == std::string_view::npos) return false;
  const std::string_view name = path.substr(dot + 1);
  if (name == "unit" || name == "units" || name.ends_with("_unit")) return true;
  const std::string_view parent = path.substr(0, dot);
  return parent.ends_with(".units");
}

namespace {

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

constexpr std::uint32_t kUnknown = 0xffffffff;

// One field of the block being read: what its cells are to the pack, and the ids of its values
// (found the first time a row refers to one).
struct FieldPlan {
  const sdk::FieldCells* cells = nullptr;
  bool observed = false;  // scalars (named attributes: any value) are observations
  bool counted = false;   // scalars are out of scope
  bool too_deep = false;  // containers are out of scope: objects and arrays at kMaxLeafDepth
  std::uint32_t attribute = 0;
  std::vector<std::uint32_t> value_ids;  // per value of the block, kUnknown until needed
  // The fields of the block that may name its readings' unit, in the order looked for, and per
  // value of each, its unit id (kUnknown until needed).
  std::vector<const sdk::FieldCells*> units;
  std::vector<std::vector<std::uint32_t>> unit_ids;
};

class Gatherer {
 public:
  explicit Gatherer(const sdk::ContextInput& input) : input_(input) {
    units_.id("");  // unit 0: none
    // The subject's own fields identify it; they are neither facts about it nor out of scope.
    for (const auto& field : input.subject_fields) {
      subject_fields_.push_back(field.text);
      fields_.named.push_back(field);
    }
    for (const auto& attribute : input.attributes) {
      if (covered_by(attribute.text, subject_fields_)) continue;
      evidence_.named_attributes.push_back(attribute.text);
      named_ids_.push_back(attributes_.id(attribute.text));
      fields_.named.push_back(attribute);
    }
    fields_.every_leaf = true;  // to observe them, or to count them out of scope
    for (const auto& attribute : input.state_attributes)
      evidence_.state_attributes.push_back(attribute.text);
    std::sort(evidence_.state_attributes.begin(), evidence_.state_attributes.end());
  }

  Evidence gather() && {
    evidence_.scan_complete = input_.cells(fields_, [&](const sdk::CellBlock& block) {
      add(block);
      return true;
    });
    evidence_.exclusions.excluded_by_request = input_.excluded_by_request;  // counted by cells()
    sort();
    return std::move(evidence_);
  }

 private:
  const Leaf& leaf(std::string_view path) {
    return leaves_
        .find(path,
              [&](std::string_view name) {
                if (covered_by(name, subject_fields_)) return Leaf{LeafRole::ignored, 0};
                // A unit is part of its siblings' readings, unless the request names it.
                if (is_unit_field(name) && !covered_by(name, evidence_.named_attributes))
                  return Leaf{LeafRole::ignored, 0};
                // Naming only the subject's own fields names no attribute: every leaf is in scope.
                if (evidence_.named_attributes.empty())
                  return Leaf{LeafRole::attribute, attributes_.id(name)};
                if (covered_by(name, evidence_.named_attributes)) return Leaf{LeafRole::ignored, 0};
                return Leaf{LeafRole::out_of_scope, 0};
              })
        .second;
  }

  // Each field's role in this block, decided once for all its rows.
  void plan(const sdk::CellBlock& block) {
    const std::size_t subjects = subject_fields_.size();
    plans_.resize(block.fields.size());
    for (std::size_t f = 0; f < block.fields.size(); ++f) {
      const sdk::FieldCells& cells = block.fields[f];
      FieldPlan& plan = plans_[f];
      plan = FieldPlan{};
      plan.cells = &cells;
      plan.value_ids.assign(cells.values.size(), kUnknown);
      const std::size_t depth = toolkit::path_depth(cells.path);
      // Leaves below kMaxLeafDepth are not looked at; the container there is counted once.
      plan.too_deep = depth == kMaxLeafDepth;
      if (f < subjects) continue;
      if (f < fields_.named.size()) {
        plan.observed = true;
        plan.attribute = named_ids_[f - subjects];
        continue;
      }
      if (depth == 0 || depth > kMaxLeafDepth) continue;
      const Leaf& role = leaf(cells.path);
      plan.observed = role.role == LeafRole::attribute;
      plan.counted = role.role == LeafRole::out_of_scope;
      plan.attribute = role.attribute;
    }
    subject_ids_.assign(subjects == 1 ? block.fields[0].values.size() : 0, kUnknown);
    // Each observed field's unit field, when the block has one.
    std::unordered_map<std::string_view, const sdk::FieldCells*> by_path;
    for (const auto& cells : block.fields)
      by_path.emplace(cells.path, &cells);
    for (auto& plan : plans_) {
      if (!plan.observed) continue;
      for (const auto& candidate : unit_fields_of(plan.cells->path)) {
        const auto it = by_path.find(candidate);
        if (it == by_path.end()) continue;
        plan.units.push_back(it->second);
        plan.unit_ids.emplace_back(it->second->values.size(), kUnknown);
      }
    }
  }

  // The unit a reading names in `row`: the first of its unit fields that holds a string there
  // (the rows of one block need not share a shape); 0 without one.
  std::uint32_t unit(FieldPlan& plan, std::size_t row) {
    for (std::size_t u = 0; u < plan.units.size(); ++u) {
      const std::uint32_t index = plan.units[u]->rows[row];
      if (index >= sdk::FieldCells::kContainer) continue;
      std::uint32_t& known = plan.unit_ids[u][index];
      if (known == kUnknown) {
        const json::value& name = plan.units[u]->values[index];
        known = name.is_string() && !name.get_string().empty() ? units_.id(name.get_string()) : 0;
      }
      if (known != 0) return known;
    }
    return 0;
  }

  std::uint32_t subject(const sdk::CellBlock& block, std::size_t row) {
    if (subject_fields_.empty()) return subjects_.id(block.ids[row]);
    auto text = [&](std::size_t f) {
      const std::uint32_t index = block.fields[f].rows[row];
      return index >= sdk::FieldCells::kContainer ? std::string("null")
                                                  : text_of(block.fields[f].values[index]);
    };
    if (subject_fields_.size() == 1) {
      const std::uint32_t index = block.fields[0].rows[row];
      if (index >= sdk::FieldCells::kContainer) return subjects_.id("null");
      std::uint32_t& known = subject_ids_[index];
      if (known == kUnknown) known = subjects_.id(text(0));
      return known;
    }
    std::string joined;
    for (std::size_t f = 0; f < subject_fields_.size(); ++f) {
      if (f > 0) joined += " / ";
      joined += text(f);
    }
    return subjects_.id(joined);
  }

  void add(const sdk::CellBlock& block) {
    plan(block);
    for (std::size_t row = 0; row < block.rows(); ++row) {
      const auto number = static_cast<std::uint32_t>(evidence_.timestamps.size());
      evidence_.ids_text += block.ids[row];
      evidence_.id_ends.push_back(evidence_.ids_text.size());
      evidence_.timestamps.push_back(block.timestamps[row]);
      if (!evidence_.newest || block.timestamps[row] > *evidence_.newest)
        evidence_.newest = block.timestamps[row];
      evidence_.source_tokens += toolkit::estimate_tokens_of_json_text(block.json_sizes[row]);
      if (block.verifications[row] != sdk::Verification::verified) {
        ++evidence_.exclusions.unverified;
        ++evidence_.unverified;
        continue;
      }
      ++evidence_.admitted;
      const std::uint32_t subject_id = subject(block, row);
      for (auto& plan : plans_) {
        const std::uint32_t index = plan.cells->rows[row];
        if (index == sdk::FieldCells::kAbsent) continue;
        const bool container =
            index == sdk::FieldCells::kContainer || plan.cells->values[index].is_structured();
        if (container && plan.too_deep) ++evidence_.exclusions.out_of_scope;
        if (index == sdk::FieldCells::kContainer) continue;
        if (plan.counted) {
          ++evidence_.exclusions.out_of_scope;
        } else if (plan.observed) {
          std::uint32_t& value = plan.value_ids[index];
          if (value == kUnknown) value = values_.id(plan.cells->values[index]);
          const bool reading = plan.cells->values[index].is_number();
          evidence_.observations.push_back({subject_id, plan.attribute, value, number,
                                            block.timestamps[row], reading ? unit(plan, row) : 0});
        }
      }
    }
  }

  // Numbers subjects and attributes in name order, and sorts the observations: grouped by
  // (subject, attribute) in one counting pass when there are not many more groups than
  // observations, then each group by time.
  void sort() {
    auto [subjects, subject_rank] = subjects_.sorted();
    auto [attributes, attribute_rank] = attributes_.sorted();
    auto& observations = evidence_.observations;
    for (auto& o : observations) {
      o.subject = subject_rank[o.subject];
      o.attribute = attribute_rank[o.attribute];
    }
    evidence_.subjects = std::move(subjects);
    evidence_.attributes = std::move(attributes);
    evidence_.values = values_.take();
    for (std::uint32_t id = 0; id < units_.size(); ++id)
      evidence_.units.emplace_back(units_.name(id));
    const Evidence& evidence = evidence_;
    const auto by_time = [&](const Observation& a, const Observation& b) {
      if (a.at != b.at) return a.at < b.at;
      if (a.record != b.record) {
        const int by_id = evidence.event_id_of(a).compare(evidence.event_id_of(b));
        if (by_id != 0) return by_id < 0;
      }
      return values_.before(a.value, b.value);
    };
    const std::size_t width = evidence_.attributes.size();
    const std::size_t groups = evidence_.subjects.size() * width;
    if (groups > observations.size() + 65536) {
      std::sort(observations.begin(), observations.end(),
                [&](const Observation& a, const Observation& b) {
                  if (a.subject != b.subject) return a.subject < b.subject;
                  if (a.attribute != b.attribute) return a.attribute < b.attribute;
                  return by_time(a, b);
                });
      return;
    }
    std::vector<std::size_t> starts(groups + 1, 0);
    for (const auto& o : observations)
      ++starts[o.subject * width + o.attribute + 1];
    for (std::size_t g = 0; g < groups; ++g)
      starts[g + 1] += starts[g];
    std::vector<Observation> grouped(observations.size());
    std::vector<std::size_t> next(starts.begin(), starts.end() - 1);
    for (const auto& o : observations)
      grouped[next[o.subject * width + o.attribute]++] = o;
    for (std::size_t g = 0; g < groups; ++g) {
      std::sort(grouped.begin() + static_cast<std::ptrdiff_t>(starts[g]),
                grouped.begin() + static_cast<std::ptrdiff_t>(starts[g + 1]), by_time);
    }
    observations = std::move(grouped);
  }

  const sdk::ContextInput& input_;
  Evidence evidence_;
  sdk::CellFields fields_;  // the subject fields, then the named attributes
  std::vector<std::string> subject_fields_;
  std::vector<std::uint32_t> named_ids_;    // the named attributes' ids
  std::vector<FieldPlan> plans_;            // of the block being read
  std::vector<std::uint32_t> subject_ids_;  // of a single subject field: per value of the block
  Names<Nothing> subjects_;
  Names<Nothing> attributes_;
  Names<Leaf> leaves_;
  Values values_;
  Names<Nothing> units_;
};

}  // namespace

Evidence gather_evidence(const sdk::ContextInput& input) {
  return Gatherer(input).gather();
}

}  // namespace eventsvc::plugins::context
