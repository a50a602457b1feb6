// A RocksdbStorage on a temporary directory whose projector is driven by hand, so tests see every
// state (accepted, projecting, verified) deterministically.
#pragma once

#include <gtest/gtest.h>

#include "eventsvc/toolkit/digest.hpp"
#include "eventsvc/toolkit/time.hpp"
#include "rocksdb_storage.hpp"
#include "support/plugin_context.hpp"
#include "support/temp_dir.hpp"

namespace eventsvc::plugins::rocksdb_storage::testing_support {

namespace json = sdk::json;

inline const sdk::Tenant kTenant{"acme", sdk::Environment::test};
inline constexpr sdk::Millis kT0 = 1795336200000;  // 2026-11-22T08:30:00Z

inline sdk::IncomingEvent event(std::string id, sdk::Millis at, json::value data,
                                json::object extra = {}) {
  json::object object{{"id", id},
                      {"type", "reading"},
                      {"occurred_at", toolkit::format_rfc3339(at)},
                      {"data", std::move(data)}};
  for (auto& member : extra)
    object[member.key()] = member.value();
  sdk::IncomingEvent incoming;
  incoming.version = {std::move(id), at, toolkit::event_digest(object)};
  incoming.event = std::move(object);
  return incoming;
}

inline sdk::IncomingWrite write_of(std::string key, std::vector<sdk::IncomingEvent> events,
                                   const sdk::Tenant& tenant = kTenant, std::string stream = "s") {
  static int counter = 0;
  sdk::IncomingWrite write;
  write.tenant = tenant;
  write.idempotency_key = std::move(key);
  char id[32];
  std::snprintf(id, sizeof id, "req_%016x", ++counter);
  write.receipt_id = id;
  write.envelope.stream = std::move(stream);
  write.events = std::move(events);
  write.received_at = toolkit::now_millis();
  std::vector<std::pair<std::string, std::string>> pairs;
  for (const auto& e : write.events)
    pairs.emplace_back(e.version.id, e.version.digest);
  write.event_set_sha256 = toolkit::event_set_sha256(pairs);
  return write;
}

inline sdk::AcceptSummary summary_of(const std::string& body) {
  const auto object = sdk::parse_json(body).as_object();
  sdk::AcceptSummary summary;
  summary.submitted = object.at("submitted").to_number<std::size_t>();
  summary.accepted = object.at("accepted").to_number<std::size_t>();
  summary.duplicates = object.at("duplicates").to_number<std::size_t>();
  return summary;
}

inline const sdk::ReceiptRenderer kRender = [](const sdk::AcceptSummary& s) {
  return sdk::to_json(json::object{{"receipt_id", s.receipt_id},
                                   {"submitted", s.submitted},
                                   {"accepted", s.accepted},
                                   {"duplicates", s.duplicates}});
};

// Every record of current state or history, oldest first.
inline sdk::RecordQuery all(sdk::Source source) {
  sdk::RecordQuery query;
  query.source = source;
  query.limit = 0;
  query.order = sdk::Order::asc;
  return query;
}

inline const sdk::ErasureRenderer kRenderErasure = [](const sdk::ErasureStatus& status) {
  return sdk::to_json(json::object{{"erasure_id", status.erasure_id},
                                   {"status", sdk::erasure_state_name(status.state)}});
};

// An erasure of `ids` and of what `where` matches over `source`, with a fresh erasure id.
inline sdk::ErasureRequest erasure_of(std::string key, std::vector<std::string> ids,
                                      std::vector<sdk::Condition> where = {},
                                      sdk::Source source = sdk::Source::history) {
  static int counter = 0;
  sdk::ErasureRequest request;
  request.tenant = kTenant;
  request.idempotency_key = std::move(key);
  char id[32];
  std::snprintf(id, sizeof id, "era_%016x", ++counter);
  request.erasure_id = id;
  request.key_id = "k1";
  request.ids = std::move(ids);
  request.where = std::move(where);
  request.source = source;
  request.request = json::object{{"ids", json::array{}}};
  request.received_at = toolkit::now_millis();
  return request;
}

class StorageFixture : public ::testing::Test {
 protected:
  void SetUp() override { open(); }

  void open() {
    storage_.reset();
    storage_ = std::make_unique<RocksdbStorage>(testing::plugin_context(
        sdk::manifest_of<RocksdbStorage>(),
        {{"projector", projector_config_}, {"block_cache_mb", 8}, {"write_buffer_mb", 4}},
        dir_.path()));
  }

  // Projects and verifies everything accepted so far.
  void project() {
    while (storage_->projector().project_once() > 0) {
    }
    storage_->projector().verify_queued();
  }

  std::vector<sdk::Record> read(sdk::RecordQuery query, const sdk::Tenant& tenant = kTenant) {
    std::vector<sdk::Record> out;
    storage_->scan(tenant, query, [&](const sdk::Record& record, double) {
      out.push_back(record);
      return true;
    });
    return out;
  }

  testing::TempDir dir_;
  std::unique_ptr<RocksdbStorage> storage_;
  json::object projector_config_{{"enabled", false}};
};

}  // namespace eventsvc::plugins::rocksdb_storage::testing_support
