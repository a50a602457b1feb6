#include "findings.hpp"

#include <algorithm>
#include <map>
#include <set>

namespace eventsvc::plugins::context {

namespace {

template <class T>
void cap(std::vector<T>& items, std::size_t limit, Exclusions& exclusions) {
  if (items.size() <= limit) return;
  exclusions.over_limit += items.size() - limit;
  items.resize(limit);
}

// min, max and count of observations[begin, end) when every one is a number.
std::optional<Range> range_of(const std::vector<Observation>& observations, std::size_t begin,
                              std::size_t end) {
  Range range;
  double low = 0;
  double high = 0;
  for (std::size_t i = begin; i < end; ++i) {
    const json::value& value = observations[i].value;
    if (!value.is_number()) return std::nullopt;
    const double number = value.to_number<double>();
    if (range.readings == 0 || number < low) {
      low = number;
      range.min = value;
    }
    if (range.readings == 0 || number > high) {
      high = number;
      range.max = value;
    }
    ++range.readings;
  }
  return range;
}

// The first `limit` of `items` in `order`, sorted; the rest counted as over the limit.
template <class T, class Order>
void newest_first(std::vector<T>& items, std::size_t limit, Exclusions& exclusions, Order order) {
  const std::size_t kept = std::min(limit, items.size());
  std::partial_sort(items.begin(), items.begin() + static_cast<std::ptrdiff_t>(kept), items.end(),
                    order);
  cap(items, limit, exclusions);
}

}  // namespace

Findings find(Evidence& evidence, const sdk::ContextRequest& request, sdk::Millis now) {
  Findings findings;
  const auto& observations = evidence.observations;
  std::map<std::string, sdk::Millis> last_seen;  // per subject
  std::set<std::pair<std::string, std::string>> observed;

  std::size_t begin = 0;
  while (begin < observations.size()) {
    // One (subject, attribute): observations[begin, end) in time order.
    std::size_t end = begin;
    while (end < observations.size() && observations[end].subject == observations[begin].subject &&
           observations[end].attribute == observations[begin].attribute) {
      ++end;
    }
    const Observation& latest = observations[end - 1];
    observed.emplace(latest.subject, latest.attribute);
    last_seen[latest.subject] = std::max(last_seen[latest.subject], latest.at);

    // Collapse every value's repeats; the latest value becomes the fact.
    std::map<std::string, std::size_t> per_value;
    for (std::size_t i = begin; i < end; ++i)
      ++per_value[observations[i].value_key];
    for (const auto& [value, count] : per_value)
      evidence.exclusions.collapsed += count - 1;
    Fact fact{
        latest.subject, latest.attribute, latest.value, latest.at, latest.at, latest.at, 0, {}, {},
        latest.record,  std::nullopt};
    for (std::size_t i = end; i > begin && observations[i - 1].value_key == latest.value_key; --i)
      fact.value_since = observations[i - 1].at;
    for (std::size_t i = begin; i < end; ++i) {
      const Observation& o = observations[i];
      if (o.value_key != latest.value_key) continue;
      fact.first_seen = std::min(fact.first_seen, o.at);
      ++fact.observations;
      if (std::find(fact.event_ids.begin(), fact.event_ids.end(), o.event_id) ==
          fact.event_ids.end()) {
        fact.event_ids.push_back(o.event_id);
      }
      fact.source_records.push_back(o.record);
    }
    fact.range = range_of(observations, begin, end);
    findings.facts.push_back(std::move(fact));

    // Changes between consecutive observations: a contradiction when two events disagree within
    // the window, else a transition.
    for (std::size_t i = begin + 1; i < end; ++i) {
      const Observation& before = observations[i - 1];
      const Observation& after = observations[i];
      if (before.value_key == after.value_key) continue;
      if (after.at - before.at <= request.contradiction_window_ms &&
          before.event_id != after.event_id) {
        findings.contradictions.push_back({after.subject, after.attribute, &before, &after});
      } else {
        findings.timeline.push_back({after.at, after.subject, after.attribute, before.value,
                                     after.value, before.event_id, after.event_id, after.record});
      }
    }
    begin = end;
  }
  findings.observed_pairs = observed.size();
  findings.contradictions_found = findings.contradictions.size();

  // Missing evidence: named attributes never observed for a subject; subjects gone quiet.
  for (const auto& subject : evidence.subjects) {
    for (const auto& attribute : evidence.named_attributes) {
      if (!observed.contains({subject, attribute})) {
        findings.missing.push_back({subject, attribute, "never_observed", 0});
        ++findings.never_observed;
      }
    }
    const auto seen = last_seen.find(subject);
    if (seen != last_seen.end() && now - seen->second > request.expected_freshness_ms) {
      findings.missing.push_back({subject, "", "stale", seen->second});
      ++findings.stale_subjects;
    }
  }

  std::sort(findings.facts.begin(), findings.facts.end(), [](const Fact& a, const Fact& b) {
    if (a.last_seen != b.last_seen) return a.last_seen > b.last_seen;
    return std::tie(a.subject, a.attribute) < std::tie(b.subject, b.attribute);
  });
  // Newest first, to keep the newest; only the kept ones need ordering (a measured value can change
  // at every reading: tens of thousands of changes for max_timeline kept).
  newest_first(findings.timeline, request.max_timeline, evidence.exclusions,
               [](const Transition& a, const Transition& b) {
                 return std::tie(b.at, b.subject, b.attribute, b.event_id) <
                        std::tie(a.at, a.subject, a.attribute, a.event_id);
               });
  newest_first(findings.contradictions, request.max_contradictions, evidence.exclusions,
               [](const Contradiction& a, const Contradiction& b) {
                 return std::tie(b.later->at, b.subject, b.attribute, b.later->event_id) <
                        std::tie(a.later->at, a.subject, a.attribute, a.later->event_id);
               });
  cap(findings.facts, request.max_facts, evidence.exclusions);
  std::reverse(findings.timeline.begin(), findings.timeline.end());  // read oldest first
  return findings;
}

}  // namespace eventsvc::plugins::context
