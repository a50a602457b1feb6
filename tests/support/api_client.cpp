#include "support/api_client.hpp"

#include <gtest/gtest.h>

#include <thread>

namespace eventsvc::testing {

std::int64_t now_ms() {
  return std::chrono::duration_cast<std::chrono::milliseconds>(
             std::chrono::system_clock::now().time_since_epoch())
      .count();
}

std::string iso(std::int64_t millis) {
  const std::time_t seconds = static_cast<std::time_t>(millis / 1000);
  std::tm tm{};
  gmtime_r(&seconds, &tm);
  char buffer[40];
  std::snprintf(buffer, sizeof buffer, "%04d-%02d-%02dT%02d:%02d:%02d.%03dZ", tm.tm_year + 1900,
                tm.tm_mon + 1, tm.tm_mday, tm.tm_hour, tm.tm_min, tm.tm_sec,
                static_cast<int>(millis % 1000));
  return buffer;
}

json::object make_event(const std::string& id, const std::string& type, std::int64_t occurred_at,
                        json::value data) {
  return {{"id", id}, {"type", type}, {"occurred_at", iso(occurred_at)}, {"data", std::move(data)}};
}

json::object make_batch(const std::string& stream, json::array events) {
  return {{"stream", stream}, {"events", std::move(events)}};
}

HttpResponse ApiClient::ingest(const json::value& batch, const std::string& idempotency_key) {
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::minutes(2);
  for (;;) {
    auto response = ingest_once(batch, idempotency_key);
    const bool lagging =
        response.status == 503 && response.body.find("\"max_lag_ms\"") != std::string::npos;
    if (!lagging || std::chrono::steady_clock::now() >= deadline) return response;
    std::this_thread::sleep_for(std::chrono::seconds(std::stoi(response.header("Retry-After"))));
  }
}

HttpResponse ApiClient::ingest_once(const json::value& batch, const std::string& idempotency_key) {
  return http_.post("/v1/events", key_, batch, {{"Idempotency-Key", idempotency_key}});
}

HttpResponse ApiClient::ingest_text(const std::string& body, const std::string& idempotency_key) {
  return http_.post("/v1/events", key_, body, {{"Idempotency-Key", idempotency_key}});
}

HttpResponse ApiClient::receipt(const std::string& receipt_id) {
  return http_.get("/v1/receipts/" + receipt_id, key_);
}

json::object ApiClient::wait_final(const std::string& receipt_id,
                                   std::chrono::milliseconds timeout) {
  const auto deadline = std::chrono::steady_clock::now() + timeout;
  json::object last;
  while (std::chrono::steady_clock::now() < deadline) {
    const auto response = receipt(receipt_id);
    if (response.status == 200) {
      last = response.json().as_object();
      const auto& status = last.at("status").as_string();
      if (status == "verified" || status == "conflict") return last;
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(20));
  }
  ADD_FAILURE() << "receipt " << receipt_id
                << " did not reach a final state: " << json::serialize(last);
  return last;
}

HttpResponse ApiClient::erase(const json::value& body, const std::string& idempotency_key) {
  return http_.post("/v1/erasures", key_, body, {{"Idempotency-Key", idempotency_key}});
}

HttpResponse ApiClient::erasure(const std::string& erasure_id) {
  return http_.get("/v1/erasures/" + erasure_id, key_);
}

json::object ApiClient::wait_erased(const std::string& erasure_id,
                                    std::chrono::milliseconds timeout) {
  const auto deadline = std::chrono::steady_clock::now() + timeout;
  json::object last;
  while (std::chrono::steady_clock::now() < deadline) {
    const auto response = erasure(erasure_id);
    if (response.status == 200) {
      last = response.json().as_object();
      if (last.at("status") != "accepted") return last;
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(20));
  }
  ADD_FAILURE() << "erasure " << erasure_id << " stayed accepted: " << json::serialize(last);
  return last;
}

std::string ApiClient::ingest_verified(const json::value& batch,
                                       const std::string& idempotency_key) {
  const auto response = ingest(batch, idempotency_key);
  EXPECT_EQ(response.status, 202) << response.body;
  if (response.status != 202) return {};
  std::string id(response.json().at("receipt_id").as_string());
  EXPECT_EQ(wait_final(id).at("status"), "verified");
  return id;
}

std::vector<std::string> ids_of(const json::value& answer) {
  std::vector<std::string> ids;
  for (const auto& result : answer.at("results").as_array()) {
    ids.emplace_back(result.at("id").as_string());
  }
  return ids;
}

}  // namespace eventsvc::testing
