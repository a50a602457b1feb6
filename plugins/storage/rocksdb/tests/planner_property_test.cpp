// Property test: for random event sets and random `where` objects over every operator, the
// indexed answer equals a brute-force reference (every record of the scope, filtered with the SDK
// evaluator, sorted by (timestamp, id)), in content and order, for current and history; across
// merges, erasures of ids among the writes (one purged, one only hidden) and the expiry of the
// oldest versions as retention removes them (an erasure of every version before an instant), one
// purged and one carried out after a restart.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <functional>
#include <map>
#include <random>
#include <set>

#include "chunks/text_scorer.hpp"
#include "eventsvc/toolkit/aggregate_accumulator.hpp"
#include "eventsvc/toolkit/aggregation_helper.hpp"
#include "eventsvc/toolkit/cells.hpp"
#include "eventsvc/toolkit/condition.hpp"
#include "eventsvc/toolkit/digest.hpp"
#include "eventsvc/toolkit/field_value.hpp"
#include "eventsvc/toolkit/record_json.hpp"
#include "eventsvc/toolkit/state_bytes.hpp"
#include "eventsvc/toolkit/text.hpp"
#include "eventsvc/toolkit/time.hpp"
#include "storage_fixture.hpp"
#include "store/key_codec.hpp"

namespace eventsvc::plugins::rocksdb_storage {
namespace {

using namespace testing_support;

// Seeds from kProductionSeeds on generate the production-like shape besides the small one:
// unique ids next to re-reported ones, high-cardinality strings (addresses, user ids, SKUs in an
// array of objects), UTF-8 values and free text of a 2,000-word vocabulary drawn with a skew, so
// that most terms hold a row or two of one chunk (bench/README.md, "The production-like shape").
constexpr unsigned kProductionSeeds = 100;

class Generator {
 public:
  Generator(unsigned seed, int ids)
      : random_(seed), ids_(ids), production_(seed >= kProductionSeeds) {}

  int pick(int n) { return std::uniform_int_distribution<int>(0, n - 1)(random_); }
  bool chance(int percent) { return pick(100) < percent; }

  json::value number() {
    switch (pick(4)) {
      case 0:
        return json::value(pick(11) - 5);
      case 1:
        return json::value((pick(21) - 10) / 2.0);
      case 2:
        return json::value(static_cast<std::int64_t>(pick(3)) * 1000000007LL);
      default:
        return json::value(pick(5));
    }
  }
  json::value word() {
    static const char* kWords[] = {"red", "Red", "green", "blue", "blueberry", "", "gr", "zeta"};
    return json::value(kWords[pick(8)]);
  }
  json::value scalar() {
    switch (pick(5)) {
      case 0:
        return number();
      case 1:
        return word();
      case 2:
        return json::value(chance(50));
      case 3:
        return json::value(nullptr);
      default:
        return number();
    }
  }

  // A word of the vocabulary: w0 the most common, w1999 the rarest.
  std::string vocabulary_word() {
    const int r = pick(2000);
    return "w" + std::to_string(r * r / 2000);
  }
  // A value generated before for `field` (most of the time), else one that may not exist.
  json::value seen_or_fresh(const std::string& field, const std::function<json::value()>& fresh) {
    const auto& values = seen_[field];
    if (!values.empty() && chance(75))
      return json::value(values[pick(static_cast<int>(values.size()))]);
    return fresh();
  }
  std::string remember(const std::string& field, std::string value) {
    seen_[field].push_back(value);
    return value;
  }
  void add_production_fields(json::object& data) {
    data["ip"] =
        remember("payload.ip", "10." + std::to_string(pick(3)) + "." + std::to_string(pick(40)) +
                                   "." + std::to_string(pick(256)));
    std::string message;
    for (int i = 0, n = 3 + pick(6); i < n; ++i)
      message += (i > 0 ? " " : "") + vocabulary_word();
    data["msg"] = message;
    static const char* kCities[] = {"Zürich", "São Paulo", "東京", "Kraków", "Malmö"};
    data["user"] =
        json::object{{"id", remember("payload.user.id", "u-" + std::to_string(pick(700)))},
                     {"city", kCities[pick(5)]}};
    json::array items;
    for (int i = 0, n = 1 + pick(3); i < n; ++i) {
      char sku[16];
      std::snprintf(sku, sizeof sku, "SKU-%05X", static_cast<unsigned>(pick(6000)));
      items.push_back(
          json::object{{"sku", remember("payload.items.0.sku", sku)}, {"qty", 1 + pick(4)}});
    }
    data["items"] = std::move(items);
  }

  sdk::IncomingEvent next_event() {
    // The production shape: half the ids unique to their event, half re-reported.
    const std::string id = production_ && chance(50) ? "u" + std::to_string(++unique_ids_)
                                                     : "e" + std::to_string(pick(ids_));
    const sdk::Millis at = kT0 + pick(50) * 1000 + (ids_ > 100 ? pick(1000) : 0);
    json::object data;
    if (chance(85)) data["num"] = number();
    if (chance(85)) data["cat"] = word();
    if (chance(60)) data["flag"] = chance(50);
    if (chance(20)) data["maybe"] = scalar();
    if (chance(50)) data["tags"] = json::array{word(), word()};
    if (chance(50)) data["nested"] = json::object{{"x", scalar()}};
    if (production_) add_production_fields(data);
    json::object extra;
    if (chance(40)) extra["metrics"] = json::object{{"cpu", number()}};
    static const char* kTypes[] = {"reading", "alert", "status"};
    auto e = event(id, at, std::move(data), std::move(extra));
    e.event["type"] = kTypes[pick(3)];
    e.version.digest = toolkit::event_digest(e.event);
    return e;
  }

  sdk::Condition condition() {
    static const char* kFields[] = {
        "payload.num",    "payload.cat",      "payload.flag", "payload.maybe", "payload.tags",
        "payload.tags.0", "payload.nested.x", "metrics.cpu",  "type",          "id",
        "timestamp",      "stream",           "payload"};
    static const char* kProductionFields[] = {"payload.ip",          "payload.user.id",
                                              "payload.user.city",   "payload.items.0.sku",
                                              "payload.items.1.qty", "payload.msg"};
    const bool production_field = production_ && chance(50);
    const std::string name = production_field ? kProductionFields[pick(6)] : kFields[pick(13)];
    const auto field = *sdk::FieldPath::parse(name);
    const auto op = static_cast<sdk::Op>(pick(12));
    sdk::Condition condition{field, op, json::value()};
    const bool instant = field.is_instant();
    auto operand = [&]() -> json::value {
      if (instant) return json::value(kT0 + pick(52) * 1000 - 1000);
      if (field.is_canonical(sdk::CanonicalField::id))
        return json::value("e" + std::to_string(pick(ids_ + 2)));
      if (production_field) {
        return seen_or_fresh(name, [&] {
          return name == "payload.items.1.qty" ? json::value(pick(6))
                                               : json::value("w" + std::to_string(pick(3000)));
        });
      }
      if (field.is_canonical(sdk::CanonicalField::type)) {
        static const char* kTypes[] = {"reading", "alert", "status", "other"};
        return json::value(kTypes[pick(4)]);
      }
      return scalar();
    };
    switch (op) {
      case sdk::Op::eq:
      case sdk::Op::neq:
        condition.operand = operand();
        break;
      case sdk::Op::in:
      case sdk::Op::not_in: {
        json::array list;
        for (int i = 0, n = 1 + pick(3); i < n; ++i)
          list.push_back(operand());
        condition.operand = std::move(list);
        break;
      }
      case sdk::Op::gt:
      case sdk::Op::gte:
      case sdk::Op::lt:
      case sdk::Op::lte:
        condition.operand = instant ? operand() : (chance(50) ? number() : word());
        break;
      case sdk::Op::exists:
        condition.operand = chance(50);
        break;
      case sdk::Op::ieq:
      case sdk::Op::contains:
      case sdk::Op::prefix: {
        if (instant) {
          condition.operand = "2026-11-22T08:3";
        } else if (production_field) {
          const auto value = operand();
          condition.operand = value.is_string() && chance(30)
                                  ? json::value(std::string(value.as_string()).substr(0, 4))
                                  : value;
        } else {
          const auto w = word();
          condition.operand = chance(30) ? json::value(std::string(w.as_string()).substr(0, 2)) : w;
        }
        break;
      }
    }
    return condition;
  }

  // A text query: over the small shape's words, or the production shape's vocabulary.
  std::string text() {
    static const char* kTexts[] = {"red",           "blue* reading",    "\"blue red\"",
                                   "reading -red",  "gr* -\"red red\"", "e1* status",
                                   "blueberry red", "zeta -gr*"};
    if (!production_ || chance(30)) return kTexts[pick(8)];
    switch (pick(5)) {
      case 0:
        return vocabulary_word();
      case 1:
        return vocabulary_word() + " " + vocabulary_word();
      case 2:
        return "w1" + std::to_string(pick(10)) + "*";
      case 3:
        return vocabulary_word() + " -" + vocabulary_word();
      default:
        return "w" + std::to_string(1000 + pick(1000));  // rare or absent
    }
  }

 private:
  std::mt19937 random_;
  int ids_;
  bool production_;
  int unique_ids_ = 0;
  std::map<std::string, std::vector<std::string>> seen_;  // generated values per field
};

std::vector<std::string> keys_of(const std::vector<sdk::Record>& records) {
  std::vector<std::string> keys;
  for (const auto& record : records) {
    keys.push_back(record.id + "@" + std::to_string(record.timestamp) + "#" +
                   record.proof_digest.substr(0, 8));
  }
  return keys;
}

// The same without the digests: what a reader naming only id and timestamp is given.
std::vector<std::string> versions_of(const std::vector<sdk::Record>& records) {
  std::vector<std::string> versions;
  for (const auto& record : records)
    versions.push_back(record.id + "@" + std::to_string(record.timestamp));
  return versions;
}

// An aggregation of `field` by operator `op`, named `name` in the answer.
sdk::AggregationSpec aggregation_spec(const char* name, const char* op, const char* field) {
  sdk::AggregationSpec spec;
  spec.name = name;
  spec.op = op;
  spec.field = sdk::FieldPath::parse(field);
  return spec;
}

std::string describe(const sdk::RecordQuery& query) {
  std::string text = std::string(sdk::source_name(query.source)) +
                     (query.order == sdk::Order::asc ? " asc" : " desc") + " limit " +
                     std::to_string(query.limit) + ":";
  for (const auto& c : query.where) {
    text +=
        " " + c.field.text + " " + std::string(sdk::op_name(c.op)) + " " + sdk::to_json(c.operand);
  }
  if (query.text) {
    text += query.rank_by_text ? " ranked text:" : " text:";
    for (const auto& word : query.text->words)
      text += " " + word;
    for (const auto& prefix : query.text->prefixes)
      text += " " + prefix + "*";
    text += " (" + std::to_string(query.text->phrases.size()) + " phrases, " +
            std::to_string(query.text->excluded.size()) + " excluded)";
  }
  return text;
}

// (seed, writes of 25 events): small sets exercise exact index streams; large ones push single
// values past the planner's estimate cap, so intersections and range collection take over.
// Projection rounds of 3 writes make many small column chunks (75 rows), which merges then
// rewrite under a policy scaled down so that small runs and every tier up to final chunks of
// 1,200 rows occur: the column path is checked on merged chunks, and on replacements recorded
// after a merge.
class PlannerPropertyTest : public StorageFixture,
                            public ::testing::WithParamInterface<std::pair<unsigned, int>> {
 protected:
  // Storage::scan_json's records, or nullopt when the engine leaves the query to scan().
  std::optional<std::vector<std::string>> spliced(const sdk::RecordQuery& query) {
    std::vector<std::string> answers;
    const auto stats = storage_->scan_json(kTenant, query, [&](const sdk::RecordJson& record) {
      answers.emplace_back(record.json);
      EXPECT_NE(answers.back().find(sdk::to_json(sdk::json::value(record.id))), std::string::npos);
      return true;
    });
    if (!stats) return std::nullopt;
    return answers;
  }
  // What scan() answers for the same query, written as answers write records.
  std::vector<std::string> decoded(const sdk::RecordQuery& query) {
    std::vector<std::string> answers;
    for (const auto& record : read(query)) {
      answers.emplace_back();
      toolkit::append_record_json(answers.back(), record);
    }
    return answers;
  }

  void SetUp() override {
    projector_config_["batch_writes"] = 3;
    projector_config_["merge_small_rows"] = 160;
    projector_config_["merge_fanout"] = 2;
    projector_config_["merge_final_rows"] = 1200;
    projector_config_["column_page_rows"] = 64;  // merged chunks of up to 19 pages
    open();
  }
  // Projects what was accepted, then merges small chunks; returns the merges made.
  std::size_t project_and_merge() {
    project();
    return storage_->projector().merge_chunks();
  }
};

TEST_P(PlannerPropertyTest, IndexedAnswersEqualBruteForce) {
  const auto [seed, writes] = GetParam();
  Generator generator(seed, writes > 50 ? 2000 : 40);
  // The independent model: first version of (id, occurred_at) wins; current = latest per id.
  std::map<std::pair<std::string, sdk::Millis>, std::string> model_history;
  std::size_t merges = 0;
  for (int w = 0; w < writes; ++w) {
    std::vector<sdk::IncomingEvent> events;
    for (int i = 0; i < 25; ++i) {
      auto e = generator.next_event();
      model_history.emplace(std::make_pair(e.version.id, e.version.occurred_at), e.version.digest);
      events.push_back(std::move(e));
    }
    storage_->accept(
        write_of("property-" + std::to_string(seed) + "-" + std::to_string(w), std::move(events)),
        kRender);
    if (w == writes / 2) merges += project_and_merge();
    if (w == writes / 3 || w == 2 * writes / 3) {
      // Every version accepted so far of a few ids goes; later writes of them stay.
      std::vector<std::string> ids;
      for (int i = 0, n = 1 + generator.pick(6); i < n; ++i) {
        auto it = model_history.begin();
        std::advance(it, generator.pick(static_cast<int>(model_history.size())));
        ids.push_back(it->first.first);
      }
      std::erase_if(model_history, [&](const auto& entry) {
        return std::find(ids.begin(), ids.end(), entry.first.first) != ids.end();
      });
      storage_->erase(erasure_of("erase-" + std::to_string(w), ids), kRenderErasure);
      if (w == writes / 3) {  // purged halfway: its chunks are rebuilt without the rows
        merges += project_and_merge();
        EXPECT_EQ(storage_->projector().purge_erasures(), 1U);
      }
    }
    if (w == writes / 2 + 1 || w == 3 * writes / 4) {
      // Expiry: every version older than an instant around the tenth of those accepted goes.
      std::vector<sdk::Millis> instants;
      for (const auto& entry : model_history)
        instants.push_back(entry.first.second);
      std::sort(instants.begin(), instants.end());
      const sdk::Millis before = instants[instants.size() / 10];
      std::erase_if(model_history, [&](const auto& entry) { return entry.first.second < before; });
      sdk::Condition older{*sdk::FieldPath::parse("timestamp"), sdk::Op::lt, json::value(before)};
      storage_->erase(erasure_of("expire-" + std::to_string(w), {}, {std::move(older)}),
                      kRenderErasure);
      if (w == writes / 2 + 1) {  // purged: whole chunks of old rows are dropped
        merges += project_and_merge();
        EXPECT_EQ(storage_->projector().purge_erasures(), 1U);
      } else {
        open();  // a restart with the expiry accepted, not yet carried out
      }
    }
  }
  merges += project_and_merge();
  EXPECT_GT(merges, 0U);

  std::map<sdk::Source, std::vector<sdk::Record>> everything;
  for (const auto source : {sdk::Source::current, sdk::Source::history}) {
    sdk::RecordQuery all;
    all.source = source;
    all.limit = 0;
    all.order = sdk::Order::asc;
    everything[source] = read(all);
  }
  // The projection itself against the model.
  ASSERT_EQ(everything[sdk::Source::history].size(), model_history.size());
  auto history_statistics = std::make_shared<TextStatistics>();
  for (const auto& record : everything[sdk::Source::history]) {
    const auto tokens = toolkit::record_tokens(record);
    std::set<std::string_view> distinct;
    for (const auto& token : tokens) {
      if (token.empty()) continue;
      ++history_statistics->length;
      if (distinct.insert(token).second) ++history_statistics->frequencies[std::string(token)];
    }
    ++history_statistics->documents;
  }
  for (const auto& record : everything[sdk::Source::history]) {
    EXPECT_EQ(model_history.at({record.id, record.timestamp}), record.proof_digest);
  }
  std::map<std::string, sdk::Millis> latest;
  for (const auto& [key, digest] : model_history) {
    latest[key.first] = std::max(latest[key.first], key.second);
  }
  ASSERT_EQ(everything[sdk::Source::current].size(), latest.size());
  for (const auto& record : everything[sdk::Source::current]) {
    EXPECT_EQ(latest.at(record.id), record.timestamp);
  }

  // Records spliced from their stored bytes equal the decoded ones: every version, time bounds
  // alone (read in time order), pages after a position.
  std::size_t spliced_queries = 0;
  for (const auto source : {sdk::Source::current, sdk::Source::history}) {
    for (const auto order : {sdk::Order::asc, sdk::Order::desc}) {
      sdk::RecordQuery query;
      query.source = source;
      query.order = order;
      query.limit = 0;
      query.scan_limit = 1000000;
      ASSERT_EQ(spliced(query), decoded(query)) << describe(query);
      query.where.push_back(
          {*sdk::FieldPath::parse("timestamp"), sdk::Op::gte, json::value(kT0 + 10 * 1000)});
      query.where.push_back(
          {*sdk::FieldPath::parse("timestamp"), sdk::Op::lt, json::value(kT0 + 40 * 1000)});
      ASSERT_EQ(spliced(query), decoded(query)) << describe(query);
      query.limit = 7;
      sdk::RecordQuery unpaged = query;
      unpaged.limit = 0;
      const auto everything_in_bounds = *spliced(unpaged);
      std::vector<std::string> paged;
      for (;;) {
        std::vector<sdk::Record> page = read(query);
        const auto answers = spliced(query);
        ASSERT_TRUE(answers) << describe(query);
        ASSERT_EQ(answers->size(), page.size());
        paged.insert(paged.end(), answers->begin(), answers->end());
        if (page.size() < query.limit) break;
        query.after = sdk::ReadPosition{0, page.back().timestamp, page.back().id};
      }
      EXPECT_EQ(paged, everything_in_bounds) << describe(query);
      EXPECT_FALSE(everything_in_bounds.empty());
    }
  }

  for (int q = 0; q < 250; ++q) {
    sdk::RecordQuery query;
    query.source = generator.chance(50) ? sdk::Source::current : sdk::Source::history;
    query.order = generator.chance(50) ? sdk::Order::asc : sdk::Order::desc;
    query.limit = generator.chance(30) ? static_cast<std::size_t>(1 + generator.pick(10)) : 0;
    query.scan_limit = 1000000;
    for (int i = 0, n = 1 + generator.pick(3); i < n; ++i)
      query.where.push_back(generator.condition());
    if (generator.chance(25)) {
      // Words, prefixes, phrases (which the postings cannot decide alone), exclusions.
      query.text = toolkit::parse_text_query(generator.text());
      query.rank_by_text = generator.chance(40);
    }

    std::vector<sdk::Record> expected;
    for (const auto& record : everything[query.source]) {
      if (!toolkit::matches_all(record, query.where)) continue;
      if (query.text && !toolkit::text_matches(*query.text, toolkit::record_tokens(record)))
        continue;
      expected.push_back(record);
    }
    if (query.order == sdk::Order::desc) std::reverse(expected.begin(), expected.end());
    std::vector<double> expected_scores(expected.size(), 0.0);
    if (query.rank_by_text) {
      // The record-wise BM25 score, with every statistic counted over the whole history
      // (text_scorer.hpp); best first, ties newer first, then by id.
      TextScorer scorer(history_statistics);
      std::vector<std::pair<double, sdk::Record>> scored;
      for (auto& record : expected)
        scored.emplace_back(scorer.score(*query.text, toolkit::record_tokens(record)), record);
      std::sort(scored.begin(), scored.end(), [](const auto& a, const auto& b) {
        if (a.first != b.first) return a.first > b.first;
        if (a.second.timestamp != b.second.timestamp)
          return a.second.timestamp > b.second.timestamp;
        return a.second.id < b.second.id;
      });
      for (std::size_t i = 0; i < scored.size(); ++i) {
        expected[i] = scored[i].second;
        expected_scores[i] = scored[i].first;
      }
    }
    const std::size_t matching = expected.size();
    if (query.limit > 0 && expected.size() > query.limit) expected.resize(query.limit);

    EXPECT_EQ(keys_of(read(query)), keys_of(expected)) << describe(query);
    // Naming only what a match's version names, the answer is the same matches (given from the
    // versions the columns found, without reading the records, where the columns answer).
    sdk::RecordQuery named = query;
    named.fields = {*sdk::FieldPath::parse("id"), *sdk::FieldPath::parse("timestamp")};
    EXPECT_EQ(versions_of(read(named)), versions_of(expected))
        << "id and timestamp: " << describe(query);
    if (!query.text) {
      if (const auto answers = spliced(query)) {
        ++spliced_queries;
        EXPECT_EQ(*answers, decoded(query)) << "spliced: " << describe(query);
      }
    }

    // The column path itself, on one thread and on two (unless a condition names the whole
    // payload, which no column holds).
    const bool whole_payload =
        std::any_of(query.where.begin(), query.where.end(),
                    [](const sdk::Condition& c) { return c.field.text == "payload"; });
    std::vector<std::string> expected_versions;
    for (const auto& record : expected)
      expected_versions.push_back(record.id + "@" + std::to_string(record.timestamp));
    ColumnReader two_threads(storage_->database(), 1);
    for (ColumnReader* reader : {&storage_->column_reader(), &two_threads}) {
      const std::size_t keep = query.limit > 0 ? query.limit : matching + 1;
      const auto found = reader->matches(kTenant, MatchQuery::of(query, keep));
      ASSERT_EQ(found.has_value(), !whole_payload) << describe(query);
      if (!found) continue;
      std::vector<std::string> versions;
      for (const auto& ref : found->versions)
        versions.push_back(ref.id + "@" + std::to_string(ref.timestamp));
      EXPECT_EQ(versions, expected_versions) << "columns: " << describe(query);
      for (std::size_t i = 0; i < found->scores.size() && i < expected_scores.size(); ++i) {
        EXPECT_EQ(found->scores[i], expected_scores[i]) << "columns: " << describe(query);
      }
      EXPECT_EQ(found->matched, matching) << "columns: " << describe(query);
    }
  }
  EXPECT_GT(spliced_queries, 100U);
}

// Aggregation pushdown: Storage::aggregate over every match of a random query (no scan limit)
// equals sums, counts, extremes, distinct values, groups and buckets computed by plain loops over
// the brute-force matches; before and after a restart.
struct TestSumState {
  toolkit::SampleCounts counts;
  double sum = 0;
};
class TestSum final : public toolkit::AggregationOperatorHelper<TestSumState> {
 public:
  std::string_view op() const override { return "sum"; }
  bool requires_field() const override { return true; }

 protected:
  void accumulate(TestSumState& state, const sdk::AggregationSpec&,
                  const sdk::Sample& sample) const override {
    if (const auto number = toolkit::take_number(state.counts, sample)) state.sum += *number;
  }
  void combine(TestSumState& into, const TestSumState& from) const override {
    into.sum += from.sum;
  }
  json::value value(const TestSumState& state, const sdk::AggregationSpec&) const override {
    return state.sum;
  }
  void save(const TestSumState& state, toolkit::StateWriter& out) const override {
    out.f64(state.sum);
  }
  void load(TestSumState& state, toolkit::StateReader& in) const override { state.sum = in.f64(); }
};
class TestMax final : public toolkit::ExtremumOperator<std::greater<double>> {
 public:
  std::string_view op() const override { return "max"; }
};
struct TestDistinctState {
  toolkit::SampleCounts counts;
  std::set<std::string> values;
};
class TestDistinct final : public toolkit::AggregationOperatorHelper<TestDistinctState> {
 public:
  std::string_view op() const override { return "distinct"; }
  bool requires_field() const override { return true; }

 protected:
  void accumulate(TestDistinctState& state, const sdk::AggregationSpec&,
                  const sdk::Sample& sample) const override {
    if (sample.value == nullptr) return;
    ++state.counts.count;
    state.values.insert(sdk::canonical_json(*sample.value));
  }
  void combine(TestDistinctState& into, const TestDistinctState& from) const override {
    into.values.insert(from.values.begin(), from.values.end());
  }
  json::value value(const TestDistinctState& state, const sdk::AggregationSpec&) const override {
    return state.values.size();
  }
  // States never leave this test.
  void save(const TestDistinctState&, toolkit::StateWriter&) const override {}
  void load(TestDistinctState&, toolkit::StateReader&) const override {}
};

// What the reference computes for one partition.
struct Expected {
  std::uint64_t records = 0;
  std::uint64_t numbers = 0;
  std::uint64_t present = 0;  // records with payload.num
  double sum = 0;
  std::optional<double> max;
  std::set<std::string> categories;
  std::uint64_t with_category = 0;

  void add(const sdk::Record& record) {
    ++records;
    const json::value* num = toolkit::resolve_path(record.payload, {"num"});
    if (num != nullptr && record.payload.as_object().contains("num")) {
      ++present;
      if (num->is_number()) {
        ++numbers;
        const double value = num->to_number<double>();
        sum += value;
        max = max ? std::max(*max, value) : value;
      }
    }
    const toolkit::FieldValue category =
        toolkit::resolve(record, *sdk::FieldPath::parse("payload.cat"));
    if (category.present()) {
      ++with_category;
      categories.insert(sdk::canonical_json(category.to_json()));
    }
  }
};

void expect_group(const sdk::AggregateGroup& group, const Expected& expected,
                  const std::vector<sdk::BoundAggregation>& aggregations, const std::string& what) {
  EXPECT_EQ(group.count, expected.records) << what;
  const auto sum = aggregations[0].op->finalize(*group.states[0], aggregations[0].spec);
  EXPECT_NEAR(sum.at("value").as_double(), expected.sum, 1e-6 * (1 + std::abs(expected.sum)))
      << what;
  EXPECT_EQ(sum.at("count").to_number<std::uint64_t>(), expected.present) << what;
  EXPECT_EQ(sum.at("skipped").to_number<std::uint64_t>(), expected.present - expected.numbers)
      << what;
  const auto max = aggregations[1].op->finalize(*group.states[1], aggregations[1].spec);
  EXPECT_EQ(max.at("value"), expected.max ? json::value(*expected.max) : json::value(nullptr))
      << what;
  const auto distinct = aggregations[2].op->finalize(*group.states[2], aggregations[2].spec);
  EXPECT_EQ(distinct.at("value").to_number<std::uint64_t>(), expected.categories.size()) << what;
  EXPECT_EQ(distinct.at("count").to_number<std::uint64_t>(), expected.with_category) << what;
}

TEST_P(PlannerPropertyTest, AggregatesEqualBruteForce) {
  const auto [seed, writes] = GetParam();
  Generator generator(seed + 100, writes > 50 ? 2000 : 40);
  std::size_t merges = 0;
  for (int w = 0; w < writes; ++w) {
    std::vector<sdk::IncomingEvent> events;
    for (int i = 0; i < 25; ++i)
      events.push_back(generator.next_event());
    storage_->accept(write_of("aggregate-" + std::to_string(w), std::move(events)), kRender);
    if (w == writes / 2) merges += project_and_merge();
  }
  merges += project_and_merge();
  EXPECT_GT(merges, 0U);

  const TestSum sum;
  const TestMax max;
  const TestDistinct distinct;
  const std::vector<sdk::BoundAggregation> aggregations{
      {aggregation_spec("sum", "sum", "payload.num"), &sum},
      {aggregation_spec("max", "max", "payload.num"), &max},
      {aggregation_spec("distinct", "distinct", "payload.cat"), &distinct}};

  for (int round = 0; round < 2; ++round) {
    std::map<sdk::Source, std::vector<sdk::Record>> everything;
    for (const auto source : {sdk::Source::current, sdk::Source::history}) {
      sdk::RecordQuery all;
      all.source = source;
      all.limit = 0;
      all.scan_limit = 1000000;
      everything[source] = read(all);
    }
    for (int q = 0; q < 40; ++q) {
      sdk::AggregateRequest request;
      request.source = generator.chance(50) ? sdk::Source::current : sdk::Source::history;
      for (int i = 0, n = generator.pick(3); i < n; ++i)
        request.where.push_back(generator.condition());
      if (generator.chance(25)) {
        request.text =
            toolkit::parse_text_query(generator.chance(50) ? "red" : "\"blue red\" -zeta");
      }
      if (generator.chance(60)) request.group_by.push_back(*sdk::FieldPath::parse("payload.cat"));
      if (generator.chance(50)) {
        request.time_bucket = sdk::TimeBucketSpec{10000, *sdk::FieldPath::parse("timestamp")};
      }
      request.aggregations = aggregations;

      Expected total;
      std::map<std::string, Expected> groups;
      for (const auto& record : everything[request.source]) {
        if (!toolkit::matches_all(record, request.where)) continue;
        if (request.text && !toolkit::text_matches(*request.text, toolkit::record_tokens(record)))
          continue;
        total.add(record);
        json::object key;
        for (const auto& field : request.group_by)
          key[field.text] = toolkit::resolve(record, field).to_json();
        if (request.time_bucket) {
          key["bucket"] = toolkit::format_rfc3339(record.timestamp - record.timestamp % 10000);
        }
        groups[sdk::canonical_json(key)].add(record);
      }
      const bool grouped = !request.group_by.empty() || request.time_bucket;
      if (!grouped) groups.clear();

      // Without text, current state and history are answered from the column chunks (unless a
      // condition names the whole payload); compare that path itself, and the record-wise one
      // otherwise.
      const bool whole_payload =
          std::any_of(request.where.begin(), request.where.end(),
                      [](const sdk::Condition& c) { return c.field.text == "payload"; });
      auto columns = storage_->column_reader().aggregate(kTenant, request);
      // The same on two threads, whatever the size, merged: the same answer.
      ColumnReader two_threads(storage_->database(), 1);
      auto parallel = two_threads.aggregate(kTenant, request);
      ASSERT_EQ(parallel.has_value(), columns.has_value());
      if (parallel) {
        EXPECT_EQ(parallel->stats.matched, total.records);
        expect_group(parallel->total, total, aggregations, "two threads");
        ASSERT_EQ(parallel->groups.size(), groups.size());
        for (std::size_t g = 0; g < groups.size(); ++g) {
          EXPECT_EQ(parallel->groups[g].count, columns->groups[g].count);
          EXPECT_EQ(parallel->groups[g].key, columns->groups[g].key);
        }
      }
      EXPECT_EQ(columns.has_value(), !whole_payload);
      const auto result = columns ? std::move(*columns)
                                  : toolkit::aggregate_by_scanning(*storage_, kTenant, request);
      const std::string what = "round " + std::to_string(round) + " query " + std::to_string(q) +
                               (columns ? " (columns)" : " (records)");
      EXPECT_EQ(result.stats.matched, total.records) << what;
      expect_group(result.total, total, aggregations, what + " total");
      ASSERT_EQ(result.groups.size(), groups.size()) << what;
      std::size_t i = 0;
      for (const auto& [key, expected] : groups) {
        EXPECT_EQ(sdk::canonical_json(result.groups[i].key), key) << what;
        expect_group(result.groups[i], expected, aggregations, what + " group " + key);
        ++i;
      }
    }
    open();  // a restart: the same answers from what is on disk
  }
}

// Records every span an operator is handed: its rows, its numbers (their bits, in order) and its
// other values, so that two answers are equal only when their spans were.
struct TestSpansState {
  toolkit::SampleCounts counts;
  std::string spans;
};
class TestSpans final : public toolkit::AggregationOperatorHelper<TestSpansState> {
 public:
  std::string_view op() const override { return "spans"; }
  bool requires_field() const override { return true; }

 protected:
  void accumulate(TestSpansState& state, const sdk::AggregationSpec&,
                  const sdk::Sample&) const override {
    state.spans += "row;";
  }
  void accumulate_span(TestSpansState& state, const sdk::AggregationSpec&,
                       const sdk::ColumnSpan& span) const override {
    state.spans += std::to_string(span.rows) + ":";
    for (const double number : span.numbers)
      state.spans += std::to_string(std::bit_cast<std::uint64_t>(number)) + ",";
    for (const auto& other : span.others)
      state.spans += sdk::canonical_json(other) + ",";
    state.spans += ";";
  }
  void combine(TestSpansState& into, const TestSpansState& from) const override {
    into.spans += "|" + from.spans;
  }
  json::value value(const TestSpansState& state, const sdk::AggregationSpec&) const override {
    return json::string(state.spans);
  }
  void save(const TestSpansState&, toolkit::StateWriter&) const override {}
  void load(TestSpansState&, toolkit::StateReader&) const override {}
};

class ColumnAggregateTest : public StorageFixture {
 protected:
  void SetUp() override {
    projector_config_["column_page_rows"] = 64;
    open();
  }
};

// An aggregation over every row of a chunk is taken a column at a time; with a condition the
// columns must decide, row by row. Both hand the operators the same spans: the same values in the
// same order, split at the same rows (a sum of doubles depends on its spans), for the total and
// every group, whatever the kinds of the cells.
TEST_F(ColumnAggregateTest, AColumnAtATimeHandsTheOperatorsTheSpansOfRowByRow) {
  std::vector<sdk::IncomingEvent> events;
  for (int n = 0; n < 2600; ++n) {
    json::object data;
    if (n % 7 == 0) {
      data["num"] = "x";       // not a number: an odd cell among the runs
    } else if (n % 11 != 0) {  // else absent
      data["num"] = n % 3 == 0 ? json::value(n / 3.0 + 0.1) : json::value(n);
    }
    data["cat"] = n % 13 == 0 ? json::value(5) : json::value("c" + std::to_string(n % 4));
    // Numbers alone, integers in runs between doubles: taken a run of one kind at a time.
    data["plain"] = n % 50 < 3 ? json::value(n + 0.25) : json::value(n);
    events.push_back(event("e" + std::to_string(n), kT0 + n * 1000, std::move(data)));
  }
  storage_->accept(write_of("spans", std::move(events)), kRender);
  project();  // one chunk of 2,600 rows

  const TestSpans spans;
  // Two of the same field share what is decoded of it; each still gets its own spans.
  const std::vector<sdk::BoundAggregation> aggregations{
      {aggregation_spec("num", "spans", "payload.num"), &spans},
      {aggregation_spec("plain", "spans", "payload.plain"), &spans},
      {aggregation_spec("plain again", "spans", "payload.plain"), &spans}};
  const sdk::Condition one_category{*sdk::FieldPath::parse("payload.cat"), sdk::Op::eq,
                                    json::value("c1")};
  enum class Grouping { none, by_field, by_bucket };
  for (const auto grouping : {Grouping::none, Grouping::by_field, Grouping::by_bucket}) {
    // Every row; and the rows of one category (found by its value postings: not consecutive).
    for (const bool some : {false, true}) {
      sdk::AggregateRequest whole;
      whole.source = sdk::Source::history;
      if (grouping == Grouping::by_field) {
        whole.group_by.push_back(*sdk::FieldPath::parse("payload.cat"));
      }
      if (grouping == Grouping::by_bucket) {  // 7 buckets of 400 seconds
        whole.time_bucket = sdk::TimeBucketSpec{400000, *sdk::FieldPath::parse("timestamp")};
      }
      if (some) whole.where.push_back(one_category);
      whole.aggregations = aggregations;
      sdk::AggregateRequest by_rows = whole;
      by_rows.where.push_back({*sdk::FieldPath::parse("id"), sdk::Op::exists, true});
      const auto columns = storage_->column_reader().aggregate(kTenant, whole);
      const auto rows = storage_->column_reader().aggregate(kTenant, by_rows);
      ASSERT_TRUE(columns && rows);
      const std::string what = std::string(grouping == Grouping::none       ? "total"
                                           : grouping == Grouping::by_field ? "by category"
                                                                            : "by bucket") +
                               (some ? ", one category" : ", every row");
      const auto expect_same_spans = [&](const sdk::AggregateGroup& got,
                                         const sdk::AggregateGroup& expected) {
        for (std::size_t i = 0; i < aggregations.size(); ++i) {
          const auto& spec = aggregations[i].spec;
          EXPECT_EQ(spans.finalize(*got.states[i], spec).at("value"),
                    spans.finalize(*expected.states[i], spec).at("value"))
              << what << ", " << spec.name;
        }
      };
      EXPECT_EQ(columns->total.count, some ? 600U : 2600U) << what;
      expect_same_spans(columns->total, rows->total);
      const auto plain = spans.finalize(*columns->total.states[1], aggregations[1].spec);
      if (!some) {
        EXPECT_NE(plain.at("value").as_string().find("1024:"), std::string::npos);
      }
      const std::size_t groups = grouping == Grouping::by_bucket  ? 7U
                                 : grouping == Grouping::by_field ? (some ? 1U : 5U)
                                                                  : 0U;
      ASSERT_EQ(columns->groups.size(), groups) << what;
      ASSERT_EQ(rows->groups.size(), columns->groups.size());
      for (std::size_t g = 0; g < columns->groups.size(); ++g) {
        EXPECT_EQ(columns->groups[g].key, rows->groups[g].key);
        EXPECT_EQ(columns->groups[g].count, rows->groups[g].count);
        expect_same_spans(columns->groups[g], rows->groups[g]);
      }
    }
  }
}

INSTANTIATE_TEST_SUITE_P(Seeds, PlannerPropertyTest,
                         ::testing::Values(std::pair{1U, 12}, std::pair{2U, 12}, std::pair{3U, 12},
                                           std::pair{4U, 12}, std::pair{5U, 12}, std::pair{6U, 12},
                                           std::pair{7U, 12}, std::pair{8U, 12},
                                           std::pair{11U, 160}, std::pair{12U, 160},
                                           // The production-like shape.
                                           std::pair{101U, 12}, std::pair{102U, 12},
                                           std::pair{103U, 40}, std::pair{111U, 160}));

}  // namespace
}  // namespace eventsvc::plugins::rocksdb_storage
