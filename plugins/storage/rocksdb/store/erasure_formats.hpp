// How an erasure is kept: the order the projector carries out, in the inbox (or a durable log's
// entry) among accepted writes so that it applies to exactly what was accepted before it; and its
// state, in the meta family under the tenant, kept for good (what was erased, by whom, when).
//
//   inbox  seq -> <tenant:varstr>{"erase":...}      beside accepted writes ({"w":...})
//   meta   "erasure/" <tenant> <erasure id>          -> the erasure's state (JSON)
#pragma once

#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "eventsvc/sdk/condition.hpp"
#include "eventsvc/sdk/storage.hpp"

namespace eventsvc::plugins::rocksdb_storage {

struct ErasureOrder {
  sdk::Tenant tenant;
  std::string erasure_id;
  std::vector<std::string> ids;
  sdk::Source source = sdk::Source::history;
  std::vector<sdk::Condition> where;
  sdk::Millis received_at = 0;
};

ErasureOrder erasure_order_of(const sdk::ErasureRequest& request);

// An inbox value (after its tenant) that is an erasure, not an accepted write.
bool is_erasure_order(std::string_view value);
std::string encode_erasure_order(const ErasureOrder& order);
// Throws Error 500 when the value is damaged.
ErasureOrder decode_erasure_order(std::string_view value);

// Erasure ids are era_..., receipt ids req_...: a log entry with an erasure id carries an erasure.
bool is_erasure_id(std::string_view id);

std::string erasure_status_key(std::string_view tenant, std::string_view erasure_id);
std::string encode_erasure_status(const sdk::ErasureStatus& status);
sdk::ErasureStatus decode_erasure_status(std::string_view value);

// The erasure's idempotency key: apart from the tenant's ingest keys, which are printable.
std::string erasure_idempotency_key(std::string_view key);

}  // namespace eventsvc::plugins::rocksdb_storage
