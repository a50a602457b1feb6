// CellBlockBuilder: the definition of the cells every storage engine hands a Context Pack mode.
#include "eventsvc/toolkit/cells.hpp"

#include <gtest/gtest.h>

#include "eventsvc/toolkit/context_pack.hpp"
#include "eventsvc/toolkit/record_json.hpp"

namespace eventsvc::toolkit {
namespace {

using namespace eventsvc::sdk;

Record record(std::string id, Millis at, json::value payload, json::value metrics = nullptr) {
  Record r;
  r.id = std::move(id);
  r.type = "reading";
  r.stream = "plant";
  r.timestamp = at;
  r.receipt_id = "req_0000000000000001";
  r.payload = std::move(payload);
  r.metrics = std::move(metrics);
  r.verification = Verification::verified;
  return r;
}

FieldPath field(const char* name) {
  return *FieldPath::parse(name);
}

// The cell of a row as text: the value's JSON, "container" or "absent".
std::string cell(const CellBlock& block, std::string_view path, std::size_t row) {
  for (const auto& field : block.fields) {
    if (field.path != path) continue;
    const std::uint32_t index = field.rows.at(row);
    if (index == FieldCells::kAbsent) return "absent";
    if (index == FieldCells::kContainer) return "container";
    return to_json(field.values.at(index));
  }
  return "no field";
}

TEST(CellBlockBuilder, NamedFieldsComeFirstAndWholeThenEveryAddressableLeaf) {
  const Record first =
      record("a", 1795336200000,
             json::object{{"room", "boiler"},
                          {"device", json::object{{"site", "s1"}, {"tags", json::array{"x", 2}}}},
                          {"dotted.key", 1},
                          {"", 2}},
             json::object{{"latency_ms", 1.5}});
  const Record second = record("b", 1795336201000, json::object{{"room", json::object{{"n", 1}}}});
  CellBlockBuilder builder({{field("payload.room"), field("timestamp"), field("stream")}, true});
  builder.add(first);
  builder.add(second);
  const CellBlock& block = builder.block();

  ASSERT_EQ(block.rows(), 2U);
  EXPECT_EQ(block.ids[1], "b");
  EXPECT_EQ(block.json_sizes[0], record_json_size(first));
  ASSERT_GE(block.fields.size(), 3U);
  EXPECT_EQ(block.fields[0].path, "payload.room");
  EXPECT_EQ(block.fields[1].path, "timestamp");
  EXPECT_EQ(block.fields[2].path, "stream");
  EXPECT_EQ(cell(block, "payload.room", 0), "\"boiler\"");
  EXPECT_EQ(cell(block, "payload.room", 1), "{\"n\":1}");  // a named field is whole
  EXPECT_EQ(cell(block, "timestamp", 0), "\"2026-11-22T08:30:00.000Z\"");
  EXPECT_EQ(cell(block, "stream", 1), "\"plant\"");
  EXPECT_EQ(cell(block, "payload.device", 0), "container");
  EXPECT_EQ(cell(block, "payload.device.site", 0), "\"s1\"");
  EXPECT_EQ(cell(block, "payload.device.tags", 0), "container");
  EXPECT_EQ(cell(block, "payload.device.tags.1", 0), "2");
  EXPECT_EQ(cell(block, "metrics.latency_ms", 0), "1.5");
  // A leaf first seen in the second row is absent from the first, and the other way round.
  EXPECT_EQ(cell(block, "payload.room.n", 0), "absent");
  EXPECT_EQ(cell(block, "payload.room.n", 1), "1");
  EXPECT_EQ(cell(block, "payload.device.site", 1), "absent");
  // Keys no field path can name are no field's; a named path is not repeated among the leaves.
  for (const auto& f : block.fields) {
    EXPECT_NE(f.path, "payload.dotted.key");
    EXPECT_NE(f.path, "payload.");
    EXPECT_EQ(f.rows.size(), 2U) << f.path;
  }
  EXPECT_EQ(std::count_if(block.fields.begin(), block.fields.end(),
                          [](const FieldCells& f) { return f.path == "payload.room"; }),
            1);
}

TEST(CellBlockBuilder, WithoutLeavesOnlyTheNamedFields) {
  CellBlockBuilder builder({{field("payload.missing")}, false});
  builder.add(record("a", 1, json::object{{"x", 1}}));
  ASSERT_EQ(builder.block().fields.size(), 1U);
  EXPECT_EQ(cell(builder.block(), "payload.missing", 0), "absent");
  builder.clear();
  EXPECT_EQ(builder.block().rows(), 0U);
  EXPECT_TRUE(builder.block().fields[0].rows.empty());
}

TEST(CellBlockBuilder, RecordsAreVisitedInBlocksOfTheAskedSize) {
  std::vector<Record> records;
  records.reserve(5);
  for (int i = 0; i < 5; ++i)
    records.push_back(record("r" + std::to_string(i), i, json::object{{"v", i}}));
  std::vector<const Record*> pointers;
  pointers.reserve(records.size());
  for (const auto& r : records)
    pointers.push_back(&r);
  std::vector<std::size_t> sizes;
  EXPECT_TRUE(visit_cells(
      pointers, {{}, true},
      [&](const CellBlock& block) {
        sizes.push_back(block.rows());
        return true;
      },
      2));
  EXPECT_EQ(sizes, (std::vector<std::size_t>{2, 2, 1}));
  EXPECT_FALSE(visit_cells(
      pointers, {{}, true}, [](const CellBlock&) { return false; }, 2));
}

TEST(CellBlockBuilder, PathDepthCountsSegmentsBelowTheRoot) {
  EXPECT_EQ(path_depth("payload.a"), 1U);
  EXPECT_EQ(path_depth("metrics.a.b.c.d"), 4U);
  EXPECT_EQ(path_depth("stream"), 0U);
}

TEST(ServeCellsFromRecords, LoadsRecordsByKeyInTheOrderAsked) {
  const Record a = record("a", 1, json::object{});
  const Record b = record("b", 2, json::object{});
  ContextInput input;
  input.scan_complete = false;
  serve_cells_from_records(input, {&a, &b});
  std::size_t rows = 0;
  EXPECT_FALSE(input.cells({{}, true}, [&](const CellBlock& block) {
    rows += block.rows();
    return true;
  }));
  EXPECT_EQ(rows, 2U);
  const auto loaded = input.load({{"b", 2}, {"a", 9}, {"a", 1}});
  ASSERT_EQ(loaded.size(), 2U);
  EXPECT_EQ(loaded[0].id, "b");
  EXPECT_EQ(loaded[1].id, "a");
}

}  // namespace
}  // namespace eventsvc::toolkit
