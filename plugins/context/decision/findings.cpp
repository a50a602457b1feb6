#include "findings.hpp"

#include <algorithm>
#include <limits>
#include <set>
#include <unordered_set>

namespace eventsvc::plugins::context {

namespace {

template <class T>
void cap(std::vector<T>& items, std::size_t limit, Exclusions& exclusions) {
  if (items.size() <= limit) return;
  exclusions.over_limit += items.size() - limit;
  items.resize(limit);
}

// min, max and count of the readings of observations[begin, end) in `unit` (0: every reading),
// when every observation is a number.
std::optional<Range> range_of(const Evidence& evidence, std::size_t begin, std::size_t end,
                              std::uint32_t unit) {
  for (std::size_t i = begin; i < end; ++i) {
    if (!evidence.value_of(evidence.observations[i]).is_number()) return std::nullopt;
  }
  Range range;
  double low = 0;
  double high = 0;
  for (std::size_t i = begin; i < end; ++i) {
    if (unit != 0 && evidence.observations[i].unit != unit) continue;
    const json::value& value = evidence.value_of(evidence.observations[i]);
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

// Newest first by time, then subject, attribute and event id (subjects and attributes are
// numbered in name order).
bool newer(const Evidence& evidence, const Observation& a, const Observation& b) {
  if (a.at != b.at) return a.at > b.at;
  if (a.subject != b.subject) return a.subject > b.subject;
  if (a.attribute != b.attribute) return a.attribute > b.attribute;
  return evidence.event_id_of(a) > evidence.event_id_of(b);
}

constexpr sdk::Millis kNever = std::numeric_limits<sdk::Millis>::min();

// The end of the run of one (subject, attribute) that starts at `begin`.
std::size_t run_end(const std::vector<Observation>& observations, std::size_t begin) {
  std::size_t end = begin;
  while (end < observations.size() && observations[end].subject == observations[begin].subject &&
         observations[end].attribute == observations[begin].attribute) {
    ++end;
  }
  return end;
}

// Counts every value's repeats in observations[begin, end) as collapsed. `per_value` (a zero per
// value of the evidence) and `seen` are the caller's, reused from run to run.
void collapse_repeats(Evidence& evidence, std::size_t begin, std::size_t end,
                      std::vector<std::uint32_t>& per_value, std::vector<std::uint32_t>& seen) {
  for (std::size_t i = begin; i < end; ++i) {
    const std::uint32_t value = evidence.observations[i].value;
    if (per_value[value]++ == 0) seen.push_back(value);
  }
  for (const auto value : seen) {
    evidence.exclusions.collapsed += per_value[value] - 1;
    per_value[value] = 0;
  }
  seen.clear();
}

// The fact of observations[begin, end): the latest value, since when it holds, its readings.
Fact fact_of(const Evidence& evidence, std::size_t begin, std::size_t end) {
  const auto& observations = evidence.observations;
  const Observation& latest = observations[end - 1];
  Fact fact{evidence.subject_of(latest),
            evidence.attribute_of(latest),
            &evidence.value_of(latest),
            latest.at,
            latest.at,
            latest.at,
            0,
            {},
            {},
            latest.record,
            evidence.is_state(evidence.attribute_of(latest))
                ? std::nullopt
                : range_of(evidence, begin, end, latest.unit),
            evidence.unit_of(latest)};
  for (std::size_t i = end; i > begin && observations[i - 1].value == latest.value; --i)
    fact.value_since = observations[i - 1].at;
  std::unordered_set<std::string_view> events_seen;
  for (std::size_t i = begin; i < end; ++i) {
    const Observation& o = observations[i];
    if (o.value != latest.value) continue;
    fact.first_seen = std::min(fact.first_seen, o.at);
    ++fact.observations;
    if (events_seen.insert(evidence.event_id_of(o)).second)
      fact.event_ids.push_back(evidence.event_id_of(o));
    fact.source_records.push_back(o.record);
  }
  return fact;
}

// Changes between consecutive observations of [begin, end): a contradiction when two events
// disagree within the window (a measurement: at the same instant), else a transition (a
// measurement: a reading like any other). Readings in two units: the latest in another unit than
// the latest reading's contradicts it (once, should the two also be consecutive readings at one
// instant).
void add_changes(const Evidence& evidence, const sdk::ContextRequest& request, std::size_t begin,
                 std::size_t end, bool measurement, Findings& findings) {
  const auto& observations = evidence.observations;
  for (std::size_t i = begin + 1; i < end; ++i) {
    const Observation& before = observations[i - 1];
    const Observation& after = observations[i];
    if (before.value == after.value) continue;
    const sdk::Millis window = measurement ? 0 : request.contradiction_window_ms;
    if (after.at - before.at <= window &&
        evidence.event_id_of(before) != evidence.event_id_of(after)) {
      findings.contradictions.push_back({&before, &after});
    } else if (!measurement) {
      findings.timeline.push_back({&before, &after});
    }
  }
  const Observation& latest = observations[end - 1];
  if (!measurement || latest.unit == 0) return;
  for (std::size_t i = end - 1; i-- > begin;) {
    const Observation& other = observations[i];
    if (other.unit == 0 || other.unit == latest.unit) continue;
    const bool listed = !findings.contradictions.empty() &&
                        findings.contradictions.back().before == &other &&
                        findings.contradictions.back().after == &latest;
    if (!listed) findings.contradictions.push_back({&other, &latest});
    break;
  }
}

// Missing evidence: named attributes never observed for a subject; subjects gone quiet.
void add_missing(const Evidence& evidence, const sdk::ContextRequest& request,
                 const std::set<std::pair<std::uint32_t, std::uint32_t>>& observed,
                 const std::vector<sdk::Millis>& last_seen, sdk::Millis now, Findings& findings) {
  std::vector<std::uint32_t> named;
  for (const auto& attribute : evidence.named_attributes) {
    named.push_back(static_cast<std::uint32_t>(
        std::lower_bound(evidence.attributes.begin(), evidence.attributes.end(), attribute) -
        evidence.attributes.begin()));
  }
  for (std::uint32_t subject = 0; subject < evidence.subjects.size(); ++subject) {
    for (const auto attribute : named) {
      if (!observed.contains({subject, attribute})) {
        findings.missing.push_back(
            {evidence.subjects[subject], evidence.attributes[attribute], "never_observed", 0});
        ++findings.never_observed;
      }
    }
    const sdk::Millis seen = last_seen[subject];
    if (seen != kNever && now - seen > request.expected_freshness_ms) {
      findings.missing.push_back({evidence.subjects[subject], "", "stale", seen});
      ++findings.stale_subjects;
    }
  }
}

// Facts newest first; the newest changes kept, read oldest first; each list to its limit.
void order_and_cap(Evidence& evidence, const sdk::ContextRequest& request, Findings& findings) {
  std::sort(findings.facts.begin(), findings.facts.end(), [](const Fact& a, const Fact& b) {
    if (a.last_seen != b.last_seen) return a.last_seen > b.last_seen;
    return std::tie(a.subject, a.attribute) < std::tie(b.subject, b.attribute);
  });
  // Newest first, to keep the newest; only the kept ones need ordering (a flapping value can change
  // thousands of times for max_timeline kept).
  const auto newer_change = [&](const Change& a, const Change& b) {
    return newer(evidence, *a.after, *b.after);
  };
  newest_first(findings.timeline, request.max_timeline, evidence.exclusions, newer_change);
  newest_first(findings.contradictions, request.max_contradictions, evidence.exclusions,
               newer_change);
  cap(findings.facts, request.max_facts, evidence.exclusions);
  std::reverse(findings.timeline.begin(), findings.timeline.end());  // read oldest first
}

}  // namespace

Findings find(Evidence& evidence, const sdk::ContextRequest& request, sdk::Millis now) {
  Findings findings;
  const auto& observations = evidence.observations;
  std::vector<sdk::Millis> last_seen(evidence.subjects.size(), kNever);
  std::set<std::pair<std::uint32_t, std::uint32_t>> observed;  // (subject, attribute)
  std::vector<std::uint32_t> per_value(evidence.values.size(), 0);
  std::vector<std::uint32_t> values_seen;
  for (std::size_t begin = 0; begin < observations.size();) {
    // One (subject, attribute): observations[begin, end) in time order.
    const std::size_t end = run_end(observations, begin);
    const Observation& latest = observations[end - 1];
    observed.emplace(latest.subject, latest.attribute);
    last_seen[latest.subject] = std::max(last_seen[latest.subject], latest.at);
    // Every value's repeats collapse; the latest value becomes the fact.
    collapse_repeats(evidence, begin, end, per_value, values_seen);
    Fact fact = fact_of(evidence, begin, end);
    const bool measurement = fact.range.has_value();
    findings.facts.push_back(std::move(fact));
    add_changes(evidence, request, begin, end, measurement, findings);
    begin = end;
  }
  findings.observed_pairs = observed.size();
  findings.contradictions_found = findings.contradictions.size();
  add_missing(evidence, request, observed, last_seen, now, findings);
  order_and_cap(evidence, request, findings);
  return findings;
}

}  // namespace eventsvc::plugins::context
