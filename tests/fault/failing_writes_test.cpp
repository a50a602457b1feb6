// Writes that the file system refuses (here: a file-size limit imposed on the running server, so
// that every append fails with EFBIG, as a full or failing disk would fail them): ingest answers
// 503 and accepts nothing, /readyz says not ready and why, the metrics count the failures, and
// nothing acknowledged before is lost across a restart.
#include <gtest/gtest.h>
#include <sys/resource.h>

#include <algorithm>
#include <chrono>
#include <thread>
#include <utility>

#include "support/api_client.hpp"
#include "support/server_process.hpp"

namespace eventsvc::testing {
namespace {

void limit_file_size(pid_t pid, rlim_t bytes) {
  rlimit limit{};
  ASSERT_EQ(::prlimit(pid, RLIMIT_FSIZE, nullptr, &limit), 0);
  limit.rlim_cur = bytes;
  ASSERT_EQ(::prlimit(pid, RLIMIT_FSIZE, &limit, nullptr), 0);
}

// One write verified ("kept"), then a file-size limit of one byte on the server (its disk fails),
// then a second write ("lost"): its receipt id, and the answer to the second.
std::pair<std::string, HttpResponse> write_then_fail_the_disk(const ServerProcess& server,
                                                              ApiClient& api, std::int64_t t) {
  std::string kept =
      api.ingest_verified(make_batch("s", json::array{make_event("kept", "t", t, 1)}), "disk-0001");
  limit_file_size(server.pid(), 1);
  return {std::move(kept),
          api.ingest(make_batch("s", json::array{make_event("lost", "t", t, 2)}), "disk-0002")};
}

HttpResponse readiness(const ServerProcess& server) {
  return HttpsClient(server.admin_port(), false).request("GET", "/readyz");
}

TEST(FailingWrites, AreRefused503AndMakeTheServerNotReady) {
  ServerProcess server(TestConfig{}.yaml());
  server.start();
  ApiClient api(server.port(), server.create_key("disk", "test"));
  const auto t = now_ms();
  const auto [kept, refused] = write_then_fail_the_disk(server, api, t);
  EXPECT_EQ(refused.status, 503) << refused.body;
  EXPECT_EQ(refused.json().at("message"), "storage is unavailable (write): an input/output error");
  EXPECT_EQ(refused.header("Retry-After"), "5");

  const auto ready = readiness(server);
  EXPECT_EQ(ready.status, 503) << ready.body;
  EXPECT_EQ(ready.json().at("checks").at("storage").at("ok"), false);
  EXPECT_EQ(ready.json().at("reasons").at(0),
            "storage: storage is unavailable (write): an input/output error");
  const auto metrics = HttpsClient(server.admin_port(), false).request("GET", "/metrics").body;
  EXPECT_NE(metrics.find("eventsvc_storage_write_failures_total{plugin=\"rocksdb\"} 1\n"),
            std::string::npos)
      << metrics;
  EXPECT_NE(metrics.find("eventsvc_ready 0\n"), std::string::npos);
  EXPECT_NE(metrics.find("eventsvc_http_requests_total{operation=\"ingest\",status=\"503\"} 1\n"),
            std::string::npos);

  // Lifted, the limit no longer refuses, but RocksDB takes no write after a failed one until it
  // is reopened: the readiness check's own probe write (after 5 s) finds the same.
  limit_file_size(server.pid(), RLIM_INFINITY);
  std::this_thread::sleep_for(std::chrono::milliseconds(5200));
  const auto still = readiness(server);
  EXPECT_EQ(still.status, 503) << still.body;
  EXPECT_EQ(still.json().at("reasons").at(0),
            "storage: storage is unavailable (write): an input/output error");

  // The process restarted: what was acknowledged is there, what was refused
  // is not, and the refused write can be sent again with its key.
  ASSERT_EQ(server.stop(), 0);
  server.start();
  EXPECT_EQ(readiness(server).status, 200);
  ApiClient again(server.port(), api.key());
  EXPECT_EQ(again.wait_final(kept).at("status"), "verified");
  const auto found = again.query(json::object{{"where", json::object{{"type", "t"}}}});
  EXPECT_EQ(ids_of(found.json()), std::vector<std::string>{"kept"});
  const auto resent =
      again.ingest(make_batch("s", json::array{make_event("lost", "t", t, 2)}), "disk-0002");
  EXPECT_EQ(resent.status, 202) << resent.body;
  EXPECT_FALSE(resent.has_header("Idempotent-Replayed"));
}

// The same disk failure under the local log plugin, where writes are made durable first: the write
// is refused with the log's reason, /readyz says so, the server goes on serving reads (RocksDB's
// own LOG writer used to abort the process here), and after a restart nothing acknowledged is
// missing.
TEST(FailingWrites, OnTheLocalLogAreRefused503AndTheServerGoesOn) {
  TestConfig config;
  config.plugins = std::string("  apikey:\n  rocksdb:\n") + kLocalLogPlugin;
  ServerProcess server(config.yaml());
  server.start();
  ApiClient api(server.port(), server.create_key("disk", "test"));
  const auto t = now_ms();
  const auto [kept, refused] = write_then_fail_the_disk(server, api, t);
  EXPECT_EQ(refused.status, 503) << refused.body;
  EXPECT_EQ(refused.json().at("message"),
            "the durable log is unavailable (append): an input/output error");
  EXPECT_EQ(refused.header("Retry-After"), "5");
  const auto metrics = HttpsClient(server.admin_port(), false).request("GET", "/metrics").body;
  EXPECT_NE(metrics.find("eventsvc_log_append_failing{plugin=\"log\"} 1\n"), std::string::npos)
      << metrics;
  const auto ready = readiness(server);
  EXPECT_EQ(ready.status, 503) << ready.body;
  // The storage's own database shares the disk: its next write may fail too, and is named then;
  // and the log's trim after a projection round may meet the full disk before the append does.
  const std::string reason(ready.json().at("reasons").at(0).as_string());
  const auto log_failed = [&](const char* operation) {
    const std::string log =
        std::string("the durable log is unavailable (") + operation + "): an input/output error";
    return reason == "storage: " + log ||
           reason == "storage: storage is unavailable (write): an input/output error; " + log;
  };
  EXPECT_TRUE(log_failed("append") || log_failed("trim")) << reason;
  const auto found = api.query(json::object{{"where", json::object{{"type", "t"}}}});
  EXPECT_EQ(found.status, 200) << found.body;
  EXPECT_EQ(ids_of(found.json()), std::vector<std::string>{"kept"});

  limit_file_size(server.pid(), RLIM_INFINITY);
  ASSERT_EQ(server.stop(), 0);  // it ran until asked to stop
  server.start();
  // Ready again once its copy of the log has caught up (its first round).
  auto ready_again = readiness(server);
  for (int i = 0; i < 500 && ready_again.status != 200; ++i) {
    std::this_thread::sleep_for(std::chrono::milliseconds(10));
    ready_again = readiness(server);
  }
  EXPECT_EQ(ready_again.status, 200) << ready_again.body;
  ApiClient again(server.port(), api.key());
  EXPECT_EQ(again.wait_final(kept).at("status"), "verified");
  const auto resent =
      again.ingest(make_batch("s", json::array{make_event("lost", "t", t, 2)}), "disk-0002");
  EXPECT_EQ(resent.status, 202) << resent.body;
  EXPECT_FALSE(resent.has_header("Idempotent-Replayed"));
  again.wait_final(std::string(resent.json().at("receipt_id").as_string()));
  const auto both = again.query(json::object{{"where", json::object{{"type", "t"}}}});
  auto ids = ids_of(both.json());
  std::sort(ids.begin(), ids.end());
  EXPECT_EQ(ids, (std::vector<std::string>{"kept", "lost"}));
}

}  // namespace
}  // namespace eventsvc::testing
