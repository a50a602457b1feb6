// scan_cells from the columns against the definition: the same records read through scan() into
// CellBlockBuilder (the SDK's default), whatever the chunk, source, order or scan limit.
#include "eventsvc/toolkit/cells.hpp"

#include <gtest/gtest.h>
#include <rocksdb/write_batch.h>

#include <map>

#include "chunks/column_chunk.hpp"
#include "storage_fixture.hpp"

namespace eventsvc::plugins::rocksdb_storage {
namespace {

using namespace testing_support;


// Every row as text: its verification, size and every present cell, keyed by id and timestamp.
using Rows = std::map<std::string, std::string>;

struct Read {
  Rows rows;
  std::size_t blocks = 0;
  bool complete = true;
};

Read collect(const std::function<sdk::ScanStats(const sdk::CellVisitor&)>& scan) {
  Read read;
  read.complete = scan([&](const sdk::CellBlock& block) {
                    ++read.blocks;
                    for (std::size_t row = 0; row < block.rows(); ++row) {
                      std::string text =
                          std::string(sdk::verification_name(block.verifications[row])) + " " +
                          std::to_string(block.json_sizes[row]);
                      std::map<std::string, std::string> cells;
                      for (std::size_t f = 0; f < block.fields.size(); ++f) {
                        const auto& field = block.fields[f];
                        const std::uint32_t index = field.rows.at(row);
                        if (index == sdk::FieldCells::kAbsent) continue;
                        // Named fields first, in order: their position is part of the contract.
                        const std::string name = std::to_string(f < 4 ? f : 4) + field.path;
                        cells[name] = index == sdk::FieldCells::kContainer
                                          ? "container"
                                          : sdk::to_json(field.values.at(index));
                      }
                      for (const auto& [name, value] : cells) {
                        text += ' ';
                        text += name;
                        text += '=';
                        text += value;
                      }
                      read.rows[std::string(block.ids[row]) + "@" +
                                std::to_string(block.timestamps[row] - kT0)] = text;
                    }
                    return true;
                  }).complete;
  return read;
}

class CellsTest : public StorageFixture {
 protected:
  // Four chunks of readings (one per projection round): nested objects, arrays, leaves deeper
  // than a pack looks, keys no path can name, numbers of every kind, an object where other
  // records hold a string (a named field then reads records), replaced versions, a conflicting
  // write and a write projected but not yet verified.
  void load() {
    for (int round = 0; round < 3; ++round) {
      std::vector<sdk::IncomingEvent> events;
      for (int i = 0; i < 40; ++i) {
        const int n = round * 40 + i;
        json::object data{
            {"room", n % 7 == 0 && round == 1 ? json::value(json::object{{"wing", "east"}})
                                              : json::value("room-" + std::to_string(n % 5))},
            {"state", n % 3 == 0 ? "running" : "idle"},
            {"reading",
             json::object{{"temp", 20.5 + n % 9}, {"count", n}, {"big", 18446744073709551615ULL}}},
            {"tags", json::array{"a", n % 2 == 0, nullptr}},
            {"deep",
             json::object{{"a", json::object{{"b", json::object{{"c", json::object{{"d", n}}}}}}}}},
            {"dotted.key", 1},
            {"flag", n % 4 == 0}};
        if (n % 6 == 0) data.erase("tags");
        events.push_back(event("sensor-" + std::to_string(n % 50), kT0 + n * sdk::Millis{1000},
                               std::move(data),
                               {{"metrics", json::object{{"latency_ms", n * 0.25}}}}));
      }
      storage_->accept(write_of("key-" + std::to_string(round), std::move(events)), kRender);
      project();
    }
    // "sensor-1" at kT0 + 1000 again with other data: a conflict, its other event unverified.
    storage_->accept(
        write_of("key-conflict", {event("sensor-1", kT0 + 1000, json::object{{"state", "x"}}),
                                  event("late", kT0 + 500, json::object{{"state", "y"}})}),
        kRender);
    project();
    storage_->accept(
        write_of("key-pending", {event("fresh", kT0 + 200000, json::object{{"state", "z"}})}),
        kRender);
    while (storage_->projector().project_once() > 0) {
    }
  }

  sdk::CellQuery query(sdk::Source source, sdk::Order order, std::size_t scan_limit) const {
    sdk::CellQuery query;
    query.records.source = source;
    query.records.order = order;
    query.records.limit = 0;
    query.records.scan_limit = scan_limit;
    query.records.where.push_back(
        {*sdk::FieldPath::parse("timestamp"), sdk::Op::gte, json::value(kT0 - 1000)});
    for (const char* name : {"payload.room", "stream", "timestamp", "payload.reading.temp"})
      query.fields.named.push_back(*sdk::FieldPath::parse(name));
    query.fields.every_leaf = true;
    return query;
  }

  void expect_as_records(std::size_t minimum_blocks) {
    for (const auto source : {sdk::Source::history, sdk::Source::current}) {
      for (const auto order : {sdk::Order::desc, sdk::Order::asc}) {
        for (const std::size_t limit : {std::size_t{10000}, std::size_t{37}}) {
          const auto q = query(source, order, limit);
          const Read columns = collect([&](const sdk::CellVisitor& visit) {
            return storage_->scan_cells(kTenant, q, visit);
          });
          const Read records = collect([&](const sdk::CellVisitor& visit) {
            return toolkit::scan_cells_by_records(*storage_, kTenant, q, visit);
          });
          SCOPED_TRACE(std::string(sdk::source_name(source)) + " limit " + std::to_string(limit));
          EXPECT_EQ(columns.rows, records.rows);
          EXPECT_EQ(columns.complete, records.complete);
          EXPECT_EQ(columns.rows.size(), limit == 37 ? 37U : records.rows.size());
          if (limit == 10000) {
            EXPECT_GE(columns.blocks, minimum_blocks);
          }
        }
      }
    }
  }
};

TEST_F(CellsTest, ColumnsHandOverTheCellsOfTheRecords) {
  load();
  expect_as_records(4);
  // The rows cover what a pack needs to tell apart.
  const auto q = query(sdk::Source::history, sdk::Order::desc, 10000);
  const Read read = collect(
      [&](const sdk::CellVisitor& visit) { return storage_->scan_cells(kTenant, q, visit); });
  EXPECT_EQ(read.rows.size(), 122U);  // the conflicting version is not stored
  EXPECT_NE(read.rows.at("fresh@200000").find("pending"), std::string::npos);
  EXPECT_NE(read.rows.at("late@500").find("conflict"), std::string::npos);
  EXPECT_NE(read.rows.at("sensor-42@42000").find("0payload.room={\"wing\":\"east\"}"),
            std::string::npos);
  EXPECT_NE(read.rows.at("sensor-2@2000").find("4payload.deep.a.b.c.d=2"), std::string::npos);
  EXPECT_EQ(read.rows.at("sensor-2@2000").find("dotted"), std::string::npos);
}

TEST_F(CellsTest, ChunksFromBeforeRecordSizesAreReadRecordByRecord) {
  load();
  // A data directory from before `#bytes`: its chunks lack the column.
  rocksdb::WriteBatch batch;
  auto& database = storage_->database();
  auto it = database.iterator(database.columns);
  std::size_t removed = 0;
  for (it->SeekToFirst(); it->Valid(); it->Next()) {
    if (it->key().ToStringView().ends_with(kRecordBytesColumn)) {
      batch.Delete(database.columns, it->key());
      ++removed;
    }
  }
  ASSERT_GE(removed, 4U);
  database.write(batch, true);
  expect_as_records(4);
}

TEST_F(CellsTest, AVisitorCanStop) {
  load();
  std::size_t blocks = 0;
  storage_->scan_cells(kTenant, query(sdk::Source::history, sdk::Order::desc, 10000),
                       [&](const sdk::CellBlock&) { return ++blocks < 2; });
  EXPECT_EQ(blocks, 2U);
}

}  // namespace
}  // namespace eventsvc::plugins::rocksdb_storage
