// POST /v1/events and GET /v1/receipts/{id} over HTTPS: validation, digests, duplicates,
// idempotency, receipts and their states, versions and conflicts, scoping.
#include <gtest/gtest.h>
#include <openssl/evp.h>

#include <algorithm>
#include <atomic>
#include <fstream>
#include <regex>
#include <set>
#include <thread>

#include "support/api_client.hpp"
#include "support/server_process.hpp"

namespace eventsvc::testing {
namespace {

// SHA-256 hex, computed here with OpenSSL directly (independent of the server's code).
std::string sha256(const std::string& text) {
  unsigned char digest[EVP_MAX_MD_SIZE];
  unsigned int length = 0;
  EVP_Digest(text.data(), text.size(), digest, &length, EVP_sha256(), nullptr);
  static constexpr char kHex[] = "0123456789abcdef";
  std::string hex;
  for (unsigned int i = 0; i < length; ++i) {
    hex.push_back(kHex[digest[i] >> 4U]);
    hex.push_back(kHex[digest[i] & 0xFU]);
  }
  return hex;
}

class IngestTest : public ::testing::Test {
 protected:
  static void SetUpTestSuite() {
    TestConfig config;
    config.plans += "  short:\n    retention_days: 2\n";
    server_ = new ServerProcess(config.yaml());
    server_->start();
    key_ = new std::string(server_->create_key("ingest", "test"));
  }
  static void TearDownTestSuite() {
    delete server_;
    delete key_;
  }
  ApiClient client() const { return ApiClient(server_->port(), *key_); }

  static ServerProcess* server_;
  static std::string* key_;
};

ServerProcess* IngestTest::server_ = nullptr;
std::string* IngestTest::key_ = nullptr;

void expect_400_at(const HttpResponse& response, const std::string& path) {
  ASSERT_EQ(response.status, 400) << response.body;
  const auto body = response.json();
  EXPECT_EQ(body.at("statusCode"), 400);
  bool found = false;
  for (const auto& error : body.at("data").at("errors").as_array()) {
    found = found || error.at("path").as_string() == path;
  }
  EXPECT_TRUE(found) << "no error at " << path << ": " << response.body;
}

TEST_F(IngestTest, ReceiptHasEveryFieldAndARecomputableEventSetHash) {
  auto api = client();
  // Canonical JSON written by hand: the digest is the SHA-256 of exactly these bytes.
  const std::string e1 =
      R"({"data":{"n":1},"id":"alpha","occurred_at":")" + iso(now_ms() - 1000) + R"(","type":"t"})";
  const std::string e2 =
      R"({"data":"x","id":"beta","occurred_at":")" + iso(now_ms() - 2000) + R"(","type":"t"})";
  const std::string body = R"({"stream":"s","events":[)" + e2 + "," + e1 + "]}";
  const auto response = api.ingest_text(body, "receipt-fields-1");
  ASSERT_EQ(response.status, 202) << response.body;
  EXPECT_FALSE(response.has_header("Idempotent-Replayed"));
  const auto receipt = response.json().as_object();
  const std::string id(receipt.at("receipt_id").as_string());
  EXPECT_TRUE(std::regex_match(id, std::regex("^req_[a-f0-9]{16}$"))) << id;
  EXPECT_EQ(receipt.at("status"), "accepted");
  EXPECT_EQ(receipt.at("verification_status"), "pending");
  EXPECT_EQ(receipt.at("submitted"), 2);
  EXPECT_EQ(receipt.at("accepted"), 2);
  EXPECT_EQ(receipt.at("duplicates"), 0);
  EXPECT_EQ(receipt.at("verify_url").as_string(), "/v1/receipts/" + id);
  EXPECT_EQ(receipt.at("integrity").at("algorithm"), "sha256-jcs");
  const std::string expected = sha256("alpha\n" + sha256(e1) + "\nbeta\n" + sha256(e2) + "\n");
  EXPECT_EQ(receipt.at("integrity").at("event_set_sha256").as_string(), expected);

  const auto final = api.wait_final(id);
  EXPECT_EQ(final.at("status"), "verified");
  EXPECT_EQ(final.at("verified_events"), 2);
  EXPECT_TRUE(final.at("conflicts").as_array().empty());
  EXPECT_EQ(final.at("integrity").at("event_set_sha256").as_string(), expected);
  for (const char* field : {"created_at", "updated_at", "expires_at"})
    EXPECT_TRUE(final.contains(field));
  // The digests are what the records carry as proof.
  const auto found = api.query(json::object{{"where", json::object{{"id", "alpha"}}}});
  EXPECT_EQ(found.json().at("results").at(0).at("proof_digest").as_string(), sha256(e1));
}

TEST_F(IngestTest, EventsPerWriteOneToOneHundred) {
  auto api = client();
  json::array hundred;
  for (int i = 0; i < 101; ++i) {
    hundred.push_back(make_event("bulk-" + std::to_string(i), "t", now_ms(), i));
  }
  const auto too_many = api.ingest(make_batch("s", hundred), "events-101");
  expect_400_at(too_many, "/events");
  EXPECT_EQ(too_many.json().at("data").at("errors").at(0).at("message"),
            "must have at most 100 items");
  hundred.pop_back();
  EXPECT_EQ(api.ingest(make_batch("s", hundred), "events-100").status, 202);
  expect_400_at(api.ingest(make_batch("s", json::array{}), "events-000"), "/events");
}

TEST_F(IngestTest, IdempotencyKeyLengths) {
  auto api = client();
  const auto batch = make_batch("s", json::array{make_event("k", "t", now_ms(), 1)});
  EXPECT_EQ(api.ingest(batch, std::string(7, 'k')).status, 400);
  EXPECT_EQ(api.ingest(batch, std::string(8, 'k')).status, 202);
  EXPECT_EQ(api.ingest(batch, std::string(128, 'q')).status, 202);
  EXPECT_EQ(api.ingest(batch, std::string(129, 'q')).status, 400);
  const auto missing = api.http().post("/v1/events", *key_, batch);
  ASSERT_EQ(missing.status, 400);
  EXPECT_NE(missing.json().at("message").as_string().find("Idempotency-Key"), std::string::npos);
}

TEST_F(IngestTest, OneMebibyteIsTheLimit) {
  auto api = client();
  const std::string head = R"({"stream":"s","events":[{"id":"big","type":"t","occurred_at":")" +
                           iso(now_ms()) + R"(","data":")";
  const std::string tail = "\"}]}";
  const std::string exact = head + std::string((1 << 20) - head.size() - tail.size(), 'x') + tail;
  ASSERT_EQ(exact.size(), 1048576U);
  EXPECT_EQ(api.ingest_text(exact, "one-mebibyte").status, 202);
  const std::string over =
      head + std::string((1 << 20) - head.size() - tail.size() + 1, 'x') + tail;
  const auto refused = api.ingest_text(over, "one-byte-over");
  EXPECT_EQ(refused.status, 413) << refused.body;
  EXPECT_EQ(refused.json().at("statusCode"), 413);
  EXPECT_TRUE(refused.has_header("X-RateLimit-Limit"));
  // A chunked body over the limit is cut off while it streams.
  const auto chunked = api.http().request("POST", "/v1/events", over,
                                          {{"Authorization", "Bearer " + *key_},
                                           {"Idempotency-Key", "chunked-over"},
                                           {"Transfer-Encoding", "chunked"},
                                           {"Content-Type", "application/json"}});
  EXPECT_EQ(chunked.status, 413) << chunked.body;
  // Nothing was written under the refused keys.
  const auto batch = make_batch("s", json::array{make_event("after-413", "t", now_ms(), 1)});
  const auto retry = api.ingest(batch, "one-byte-over");
  EXPECT_EQ(retry.status, 202);
  EXPECT_FALSE(retry.has_header("Idempotent-Replayed"));
}

TEST_F(IngestTest, MalformedBodiesListEveryProblem) {
  auto api = client();
  for (const char* text : {"not json", "[1,2]", "{\"stream\": \"s\", \"events\": [}", ""}) {
    const auto response = api.ingest_text(text, "malformed-1");
    EXPECT_EQ(response.status, 400) << text;
    EXPECT_EQ(response.json().at("statusCode"), 400);
  }
  const json::value bad = json::parse(R"({
    "stream": 5,
    "namespace": "",
    "events": [
      {"id": 7, "type": "t", "occurred_at": "yesterday", "data": 1},
      {"type": "", "occurred_at": "2026-11-22T08:00:00Z"},
      "not an object"
    ]
  })");
  const auto response = api.ingest(bad, "malformed-2");
  ASSERT_EQ(response.status, 400);
  std::set<std::string> paths;
  const auto answer = response.json();
  for (const auto& error : answer.at("data").at("errors").as_array()) {
    paths.emplace(error.at("path").as_string());
  }
  EXPECT_EQ(paths, (std::set<std::string>{"/stream", "/namespace", "/events/0/id",
                                          "/events/0/occurred_at", "/events/1/id", "/events/1/type",
                                          "/events/1/data", "/events/2"}));
  // Deep nesting is a 400, not a crash.
  std::string deep = R"({"stream":"s","events":[{"id":"d","type":"t","occurred_at":")" +
                     iso(now_ms()) + R"(","data":)" + std::string(200, '[') +
                     std::string(200, ']') + "}]}";
  EXPECT_EQ(api.ingest_text(deep, "malformed-3").status, 400);
  // A repeated key is refused naming it (its event's digest would depend on which copy counted),
  // and nothing is written under the idempotency key.
  const std::string repeated = R"({"stream":"s","events":[{"id":"r","type":"t","occurred_at":")" +
                               iso(now_ms()) + R"(","data":{"v":1,"v":2}}]})";
  const auto refused = api.ingest_text(repeated, "malformed-4");
  ASSERT_EQ(refused.status, 400);
  EXPECT_EQ(refused.json().at("message"),
            "request body is not valid JSON: an object repeats the key \"v\"");
  const auto retry = api.ingest(
      make_batch("s", json::array{make_event("r", "t", now_ms(), json::object{{"v", 1}})}),
      "malformed-4");
  EXPECT_EQ(retry.status, 202);
  EXPECT_FALSE(retry.has_header("Idempotent-Replayed"));
}

TEST_F(IngestTest, OccurredAtMustLieWithinRetentionAndSkew) {
  auto api = client();
  const auto old = api.ingest(
      make_batch("s", json::array{make_event("ok", "t", now_ms(), 1),
                                  make_event("old", "t", now_ms() - 40LL * 86400000, 1),
                                  make_event("future", "t", now_ms() + 2LL * 86400000, 1)}),
      "retention-1");
  expect_400_at(old, "/events/1/occurred_at");
  expect_400_at(old, "/events/2/occurred_at");
  EXPECT_EQ(old.json().at("data").at("errors").as_array().size(), 2U);
  // A plan with a shorter retention refuses sooner.
  ApiClient short_plan(server_->port(),
                       server_->create_key("ingest", "test", "events:write", "short"));
  expect_400_at(
      short_plan.ingest(
          make_batch("s", json::array{make_event("d3", "t", now_ms() - 3LL * 86400000, 1)}),
          "retention-2"),
      "/events/0/occurred_at");
}

TEST_F(IngestTest, DuplicatesWithinAWriteAndAcrossWrites) {
  auto api = client();
  const auto a = make_event("dup-a", "t", now_ms(), json::object{{"v", 1}});
  const auto b = make_event("dup-b", "t", now_ms(), json::object{{"v", 2}});
  const auto first = api.ingest(make_batch("s", json::array{a, b, a}), "duplicates-1").json();
  EXPECT_EQ(first.at("submitted"), 3);
  EXPECT_EQ(first.at("accepted"), 2);
  EXPECT_EQ(first.at("duplicates"), 1);
  const auto second =
      api.ingest(make_batch("s", json::array{b, make_event("dup-c", "t", now_ms(), 3)}),
                 "duplicates-2")
          .json();
  EXPECT_EQ(second.at("duplicates"), 1);
  EXPECT_EQ(second.at("accepted"), 1);
  EXPECT_EQ(api.wait_final(std::string(second.at("receipt_id").as_string())).at("status"),
            "verified");
  const auto stored = api.query(
      json::object{{"source", "history"},
                   {"where", json::object{{"id", json::object{{"prefix", "dup-"}}},
                                          {"timestamp", json::object{{"gte", "now-1h"}}}}}});
  EXPECT_EQ(stored.json().at("count"), 3);
}

TEST_F(IngestTest, CompletedKeyReplaysTheOriginalBytes) {
  auto api = client();
  const auto original = api.ingest(
      make_batch("s", json::array{make_event("replay-1", "t", now_ms(), 1)}), "replay-key-1");
  ASSERT_EQ(original.status, 202);
  const auto replay = api.ingest(
      make_batch("s", json::array{make_event("replay-1", "t", now_ms(), 1)}), "replay-key-1");
  EXPECT_EQ(replay.status, 202);
  EXPECT_EQ(replay.body, original.body);
  EXPECT_EQ(replay.header("Idempotent-Replayed"), "true");
  // A changed payload under the used key replays too and writes nothing.
  const auto changed = api.ingest(
      make_batch("s", json::array{make_event("replay-other", "t", now_ms(), 2)}), "replay-key-1");
  EXPECT_EQ(changed.body, original.body);
  api.wait_final(std::string(original.json().at("receipt_id").as_string()));
  const auto other = api.query(json::object{{"where", json::object{{"id", "replay-other"}}}});
  EXPECT_EQ(other.json().at("count"), 0);
}

TEST_F(IngestTest, ConcurrentRequestsWithOneKeyGet409WhileInFlight) {
  bool saw_conflict = false;
  for (int round = 0; round < 30 && !saw_conflict; ++round) {
    const std::string idempotency = "concurrent-" + std::to_string(round);
    json::array events;
    for (int i = 0; i < 100; ++i) {
      events.push_back(make_event("c" + std::to_string(round) + "-" + std::to_string(i), "t",
                                  now_ms(), json::object{{"pad", std::string(2000, 'p')}}));
    }
    const std::string body = json::serialize(make_batch("s", events));
    std::vector<HttpResponse> responses(8);
    std::atomic<int> ready{0};
    std::vector<std::thread> threads;
    for (auto& response : responses) {
      threads.emplace_back([&, idempotency] {
        ApiClient api(server_->port(), *key_);
        ++ready;
        while (ready.load() < 8)
          std::this_thread::yield();
        response = api.ingest_text(body, idempotency);
      });
    }
    for (auto& thread : threads)
      thread.join();
    std::set<std::string> receipts;
    for (const auto& response : responses) {
      if (response.status == 409) {
        saw_conflict = true;
        EXPECT_TRUE(response.has_header("Retry-After"));
        EXPECT_EQ(response.json().at("statusCode"), 409);
      } else {
        ASSERT_EQ(response.status, 202) << response.body;
        receipts.emplace(response.json().at("receipt_id").as_string());
      }
    }
    EXPECT_EQ(receipts.size(), 1U);  // one write, everyone else replayed it
  }
  EXPECT_TRUE(saw_conflict);
}

TEST_F(IngestTest, KeysAndReceiptsAreScopedToWorkspaceAndEnvironment) {
  ApiClient test_env(server_->port(), server_->create_key("scoped", "test"));
  ApiClient live_env(server_->port(), server_->create_key("scoped", "live"));
  ApiClient other_ws(server_->port(), server_->create_key("scoped-other", "test"));
  const auto batch = make_batch("s", json::array{make_event("scoped-1", "t", now_ms(), 1)});
  const auto in_test = test_env.ingest(batch, "same-key-everywhere");
  const auto in_live = live_env.ingest(batch, "same-key-everywhere");
  EXPECT_FALSE(in_live.has_header("Idempotent-Replayed"));
  EXPECT_NE(in_test.json().at("receipt_id"), in_live.json().at("receipt_id"));
  const std::string receipt(in_test.json().at("receipt_id").as_string());
  EXPECT_EQ(test_env.receipt(receipt).status, 200);
  EXPECT_EQ(live_env.receipt(receipt).status, 404);
  const auto other = other_ws.receipt(receipt);
  EXPECT_EQ(other.status, 404);
  EXPECT_EQ(other.json().at("statusCode"), 404);
  EXPECT_EQ(test_env.receipt("req_0000000000000000").status, 404);
  for (const char* bad :
       {"req_123", "req_0123456789ABCDEF", "xyz_0123456789abcdef", "req_0123456789abcdeg"}) {
    const auto response = test_env.receipt(bad);
    EXPECT_EQ(response.status, 400) << bad;
    EXPECT_NE(response.json().at("message").as_string().find("invalid receipt id"),
              std::string::npos);
  }
}

TEST_F(IngestTest, ReusedVersionWithAnotherPayloadEndsInConflict) {
  auto api = client();
  const auto at = now_ms() - 5000;
  api.ingest_verified(
      make_batch("s", json::array{make_event("versioned", "t", at, json::object{{"v", "first"}})}),
      "conflict-1");
  const auto second = api.ingest(
      make_batch("s", json::array{make_event("versioned", "t", at, json::object{{"v", "second"}})}),
      "conflict-2");
  ASSERT_EQ(second.status, 202);
  const auto final = api.wait_final(std::string(second.json().at("receipt_id").as_string()));
  EXPECT_EQ(final.at("status"), "conflict");
  ASSERT_EQ(final.at("conflicts").as_array().size(), 1U);
  const auto& conflict = final.at("conflicts").at(0);
  EXPECT_EQ(conflict.at("id"), "versioned");
  EXPECT_EQ(conflict.at("occurred_at").as_string(), iso(at));
  EXPECT_NE(conflict.at("submitted_digest"), conflict.at("stored_digest"));
  const auto stored = api.query(json::object{{"where", json::object{{"id", "versioned"}}}});
  EXPECT_EQ(stored.json().at("results").at(0).at("payload").at("v"), "first");
  EXPECT_EQ(stored.json().at("results").at(0).at("proof_digest"), conflict.at("stored_digest"));
}

TEST_F(IngestTest, OlderVersionVerifiesAndStaysOutOfCurrent) {
  auto api = client();
  const auto now = now_ms();
  api.ingest_verified(make_batch("s", json::array{make_event("device-9", "state", now - 1000,
                                                             json::object{{"s", "on"}})}),
                      "versions-1");
  api.ingest_verified(make_batch("s", json::array{make_event("device-9", "state", now - 60000,
                                                             json::object{{"s", "off"}})}),
                      "versions-2");
  const auto current = api.query(json::object{{"where", json::object{{"id", "device-9"}}}}).json();
  ASSERT_EQ(current.at("count"), 1);
  EXPECT_EQ(current.at("results").at(0).at("payload").at("s"), "on");
  const auto history =
      api.query(json::object{{"source", "history"},
                             {"where", json::object{{"id", "device-9"},
                                                    {"timestamp", json::object{{"gt", "now-1h"}}}}},
                             {"order", "asc"}})
          .json();
  ASSERT_EQ(history.at("count"), 2);
  EXPECT_EQ(history.at("results").at(0).at("payload").at("s"), "off");
}

TEST_F(IngestTest, AdditionalPropertiesAreKept) {
  auto api = client();
  json::object event = make_event("extra-1", "t", now_ms(), json::object{{"x", 1}});
  event["metrics"] = json::object{{"cpu", 0.25}};
  event["origin"] = "probe-7";
  json::object batch = make_batch("s", json::array{event});
  batch["namespace"] = "plant-a";
  batch["site_id"] = "site-3";
  batch["source_id"] = "src-1";
  batch["collector"] = json::object{{"version", "2.1"}};
  api.ingest_verified(batch, "extras-1");
  const auto record = api.query(json::object{{"where", json::object{{"id", "extra-1"}}}})
                          .json()
                          .at("results")
                          .at(0);
  EXPECT_EQ(record.at("namespace"), "plant-a");
  EXPECT_EQ(record.at("site_id"), "site-3");
  EXPECT_EQ(record.at("source_id"), "src-1");
  EXPECT_EQ(record.at("metrics").at("cpu"), 0.25);
  EXPECT_EQ(record.at("attributes").at("origin"), "probe-7");
  EXPECT_EQ(record.at("envelope").at("collector").at("version"), "2.1");
  EXPECT_EQ(record.at("stream"), "s");
  EXPECT_EQ(record.at("verification"), "verified");
}

TEST(IngestProjectorOff, WritesAreAcceptedButVerificationIsUnavailable) {
  TestConfig config;
  config.plugins =
      "  apikey:\n    library: eventsvc-auth-apikey\n"
      "  rocksdb:\n    library: eventsvc-storage-rocksdb\n    config:\n"
      "      projector:\n        enabled: false\n";
  ServerProcess server(config.yaml());
  server.start();
  const std::string key = server.create_key("off", "test");
  ApiClient api(server.port(), key);
  const auto response =
      api.ingest(make_batch("s", json::array{make_event("p1", "t", now_ms(), 1)}), "projector-off");
  ASSERT_EQ(response.status, 202);
  EXPECT_EQ(response.json().at("verification_status"), "unavailable");
  const std::string id(response.json().at("receipt_id").as_string());
  EXPECT_EQ(api.receipt(id).json().at("status"), "verification-unavailable");
  // Turning the projector back on resumes from the durable inbox.
  ASSERT_EQ(server.stop(), 0);
  std::ofstream(server.config_path()) << TestConfig{}.yaml();
  server.start();
  ApiClient restarted(server.port(), key);
  EXPECT_EQ(restarted.wait_final(id).at("status"), "verified");
}

}  // namespace
}  // namespace eventsvc::testing
