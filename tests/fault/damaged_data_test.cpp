// A damaged data directory stops the start with one line saying what is damaged, instead of being
// served as if acknowledged writes had never existed: a truncated MANIFEST (RocksDB would
// otherwise create the column families it forgot again, empty), a column family dropped, garbage
// in the middle of the write-ahead log (which RocksDB would otherwise skip with every record after
// it), a damaged catalogue, a database older than its catalogue, and a damaged key file. Nothing is
// changed by the refused start: put the damaged file back as it was and every acknowledged event is
// there.
#include <gtest/gtest.h>
#include <rocksdb/db.h>

#include <filesystem>
#include <fstream>
#include <functional>
#include <map>

#include "eventsvc/toolkit/digest.hpp"
#include "support/api_client.hpp"
#include "support/server_process.hpp"

namespace eventsvc::testing {
namespace {

namespace fs = std::filesystem;

constexpr int kEvents = 60;

std::string read_bytes(const fs::path& path) {
  std::ifstream in(path, std::ios::binary);
  return {std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>()};
}

void write_bytes(const fs::path& path, const std::string& bytes) {
  std::ofstream(path, std::ios::binary | std::ios::trunc) << bytes;
}

// Every file of a database directory with its bytes, but RocksDB's informational log.
std::map<std::string, std::string> files_of(const fs::path& directory) {
  std::map<std::string, std::string> files;
  for (const auto& entry : fs::directory_iterator(directory)) {
    const std::string name = entry.path().filename().string();
    if (name.starts_with("LOG")) continue;
    files[name] = read_bytes(entry.path());
  }
  return files;
}

class DamagedData : public ::testing::Test {
 protected:
  void SetUp() override {
    server_.start();
    key_ = server_.create_key("damage", "test");
    ApiClient api(server_.port(), key_);
    for (int w = 0; w < 3; ++w) {
      json::array events;
      for (int e = 0; e < kEvents / 3; ++e) {
        const int n = w * (kEvents / 3) + e;
        events.push_back(
            make_event("d-" + std::to_string(n), "t", now_ms() - 1000 + n, json::object{{"n", n}}));
      }
      api.ingest_verified(make_batch("damage", events), "damage-write-" + std::to_string(w));
    }
  }

  fs::path database() const { return server_.data_dir() / "rocksdb" / "db"; }

  fs::path newest(const std::string& prefix, const std::string& suffix) const {
    fs::path found;
    for (const auto& entry : fs::directory_iterator(database())) {
      const std::string name = entry.path().filename().string();
      if (name.starts_with(prefix) && name.ends_with(suffix) &&
          (found.empty() || name > found.filename().string())) {
        found = entry.path();
      }
    }
    return found;
  }

  // Starts the server expecting it to refuse; returns what it said.
  std::string refused_start() {
    const std::size_t from = server_.log_size();
    try {
      server_.start();
    } catch (const std::runtime_error&) {
      return server_.log().substr(from);
    }
    ADD_FAILURE() << "the server started on a damaged data directory";
    server_.kill();
    return {};
  }

  // Replaces `file` with damage(its bytes), expects the start refused with a line holding each of
  // `said`, then puts the file back and expects every acknowledged event served again.
  void expect_refused_until_mended(const fs::path& file,
                                   const std::function<std::string(std::string)>& damage,
                                   const std::vector<std::string>& said) {
    ASSERT_FALSE(file.empty());
    const std::string whole = read_bytes(file);
    ASSERT_FALSE(whole.empty()) << file;
    write_bytes(file, damage(whole));
    const auto before = files_of(database());
    const std::string answer = refused_start();
    for (const auto& text : said)
      EXPECT_NE(answer.find(text), std::string::npos) << answer;
    EXPECT_EQ(files_of(database()), before) << "the refused start changed the database's files";
    write_bytes(file, whole);
    expect_everything();
  }

  // Every acknowledged event is served again.
  void expect_everything() {
    server_.start();
    ApiClient api(server_.port(), key_);
    const auto response = api.query(
        json::object{{"source", "history"},
                     {"where", json::object{{"timestamp", json::object{{"gte", "now-1h"}}}}},
                     {"limit", 1000}});
    ASSERT_EQ(response.status, 200) << response.body;
    EXPECT_EQ(response.json().at("results").as_array().size(), static_cast<std::size_t>(kEvents));
  }

  ServerProcess server_{test_config()};
  std::string key_;
};

TEST_F(DamagedData, ATruncatedManifestStopsTheStart) {
  ASSERT_EQ(server_.stop(), 0);
  expect_refused_until_mended(newest("MANIFEST-", ""),
                              [](std::string bytes) { return bytes.substr(0, bytes.size() / 2); },
                              {database().string() + " is damaged and was not opened"});
}

TEST_F(DamagedData, ADroppedColumnFamilyStopsTheStart) {
  ASSERT_EQ(server_.stop(), 0);
  {
    std::vector<std::string> names;
    ASSERT_TRUE(rocksdb::DB::ListColumnFamilies({}, database().string(), &names).ok());
    std::vector<rocksdb::ColumnFamilyDescriptor> families;
    for (const auto& name : names)
      families.emplace_back(name, rocksdb::ColumnFamilyOptions());
    std::vector<rocksdb::ColumnFamilyHandle*> handles;
    rocksdb::DB* db = nullptr;
    ASSERT_TRUE(rocksdb::DB::Open({}, database().string(), families, &handles, &db).ok());
    for (auto* handle : handles) {
      if (handle->GetName() == "history") {
        EXPECT_TRUE(db->DropColumnFamily(handle).ok());
      }
      EXPECT_TRUE(db->DestroyColumnFamilyHandle(handle).ok());
    }
    delete db;
  }
  const std::string said = refused_start();
  EXPECT_NE(said.find("column family 'history' is missing"), std::string::npos) << said;
}

TEST_F(DamagedData, GarbageInTheWriteAheadLogStopsTheStart) {
  server_.kill();  // the acknowledged writes are in the log, not yet in table files
  expect_refused_until_mended(newest("", ".log"),
                              [](std::string bytes) {
                                EXPECT_GT(bytes.size(), 4096U);
                                for (std::size_t i = bytes.size() / 3; i < bytes.size() / 3 + 64;
                                     ++i)
                                  bytes[i] = static_cast<char>(0xA5);
                                return bytes;
                              },
                              {"is damaged and was not opened", "Corruption"});
}

TEST_F(DamagedData, ADamagedCatalogueStopsTheStart) {
  ASSERT_EQ(server_.stop(), 0);
  const fs::path catalogue = database() / "eventsvc-catalogue";
  expect_refused_until_mended(catalogue,
                              [](std::string bytes) { return bytes.substr(0, bytes.size() - 10); },
                              {catalogue.string() + " is damaged"});
}

TEST_F(DamagedData, ADatabaseBehindItsCatalogueStopsTheStart) {
  ASSERT_EQ(server_.stop(), 0);
  // A catalogue that recorded more projected writes than the database holds, correctly signed:
  // what a database restored from an older copy under a newer catalogue looks like.
  expect_refused_until_mended(database() / "eventsvc-catalogue",
                              [](const std::string& bytes) {
                                auto object = json::parse(bytes).as_object();
                                object.erase("sha256");
                                object["projected"] =
                                    object.at("projected").to_number<std::uint64_t>() + 5;
                                object["sha256"] = toolkit::sha256_hex(sdk::canonical_json(object));
                                return json::serialize(object);
                              },
                              {"acknowledged writes are missing"});
}

TEST_F(DamagedData, ADamagedKeyFileStopsTheStart) {
  ASSERT_EQ(server_.stop(), 0);
  const fs::path keys = server_.data_dir() / "apikey" / "keys.json";
  expect_refused_until_mended(
      keys, [](std::string bytes) { return bytes.substr(0, bytes.size() / 2); },
      {"keys_file: " + keys.string() + " is damaged: it is not valid JSON"});
}

}  // namespace
}  // namespace eventsvc::testing
