// API-level helpers for integration tests: writing batches, polling receipts, reading.
#pragma once

#include <boost/json.hpp>
#include <chrono>
#include <string>

#include "support/https_client.hpp"

namespace eventsvc::testing {

namespace json = boost::json;

std::int64_t now_ms();
// RFC 3339 UTC with milliseconds.
std::string iso(std::int64_t millis);

json::object make_event(const std::string& id, const std::string& type, std::int64_t occurred_at,
                        json::value data);
json::object make_batch(const std::string& stream, json::array events);

class ApiClient {
 public:
  ApiClient(int port, std::string key) : http_(port), key_(std::move(key)) {}

  HttpsClient& http() { return http_; }
  const std::string& key() const { return key_; }

  // Writes a batch as a well-behaved client does: a 503 that refuses it while search trails
  // acceptance past projector.max_lag_ms is retried with the same key after Retry-After (two
  // minutes at most); every other answer is returned as it came. ingest_once() never retries.
  HttpResponse ingest(const json::value& batch, const std::string& idempotency_key);
  HttpResponse ingest_once(const json::value& batch, const std::string& idempotency_key);
  HttpResponse ingest_text(const std::string& body, const std::string& idempotency_key);
  HttpResponse receipt(const std::string& receipt_id);
  // Polls until the receipt is verified or conflict (fails the test after `timeout`).
  json::object wait_final(const std::string& receipt_id,
                          std::chrono::milliseconds timeout = std::chrono::seconds(20));
  // Ingests and waits until the write is verified; returns the receipt id.
  std::string ingest_verified(const json::value& batch, const std::string& idempotency_key);

  // POST /v1/erasures and GET /v1/erasures/{id}.
  HttpResponse erase(const json::value& body, const std::string& idempotency_key);
  HttpResponse erasure(const std::string& erasure_id);
  // Polls until the erasure is past `accepted` (hidden, purged or failed; fails the test after
  // `timeout`) and returns it.
  json::object wait_erased(const std::string& erasure_id,
                           std::chrono::milliseconds timeout = std::chrono::seconds(20));

  HttpResponse search(const json::value& body) { return http_.post("/v1/search", key_, body); }
  HttpResponse query(const json::value& body) { return http_.post("/v1/query", key_, body); }
  HttpResponse analyze(const json::value& body) { return http_.post("/v1/analyze", key_, body); }

 private:
  HttpsClient http_;
  std::string key_;
};

// The ids of `results` in order.
std::vector<std::string> ids_of(const json::value& answer);

}  // namespace eventsvc::testing
