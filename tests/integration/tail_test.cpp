// GET /v1/tail through the real binary (docs/api.md#tail): Server-Sent Events of every matching
// event once it is searchable, in log order; a client cut off resumes with Last-Event-ID and gets
// exactly what was written meanwhile; a client that stops reading is told `lagged` with the count
// of what it missed and an export cursor that fetches exactly those; the plan's cap answers 429
// before any stream starts; SIGTERM ends every tail with a final event. (Also run with the local
// durable log: tail_integration_test_on_local_log.)
#include <gtest/gtest.h>

#include <algorithm>
#include <set>
#include <thread>
#include <utility>

#include "support/api_client.hpp"
#include "support/server_process.hpp"
#include "support/tail_client.hpp"

namespace eventsvc::testing {
namespace {

constexpr auto kWait = std::chrono::seconds(60);

// Writes `count` events, `per_batch` a write, alternating streams "orders" and "sensors"; returns
// their ids in the order written.
// `searchable`: each write's receipt is awaited, so its events are searchable on return.
std::vector<std::string> write_events(ApiClient& api, const std::string& prefix, int count,
                                      int per_batch = 25, std::size_t padding = 0,
                                      bool searchable = false) {
  std::vector<std::string> ids;
  const std::int64_t base = now_ms();
  for (int start = 0; start < count; start += per_batch) {
    for (const char* stream : {"orders", "sensors"}) {
      json::array events;
      for (int i = start; i < std::min(count, start + per_batch); ++i) {
        if ((i % 2 == 0) != (std::string(stream) == "orders")) continue;
        const std::string id = prefix + "-" + std::to_string(i);
        events.push_back(make_event(
            id, "tick", base + i,
            json::object{{"n", i}, {"text", "event " + id + std::string(padding, 'x')}}));
        ids.push_back(id);
      }
      if (events.empty()) continue;
      const std::string key = prefix + "-write-" + stream + std::to_string(start);
      if (searchable) {
        api.ingest_verified(make_batch(stream, std::move(events)), key);
        continue;
      }
      const auto answer = api.ingest(make_batch(stream, std::move(events)), key);
      EXPECT_EQ(answer.status, 202) << answer.body;
    }
  }
  return ids;
}

std::string id_of(const SseEvent& event) {
  return std::string(boost::json::parse(event.data).as_object().at("id").as_string());
}

std::vector<std::string> ids_of(const std::vector<SseEvent>& events) {
  std::vector<std::string> ids;
  for (const auto& event : events)
    ids.push_back(id_of(event));
  return ids;
}

std::vector<std::string> of_stream(const std::vector<std::string>& ids, int parity) {
  std::vector<std::string> out;
  for (const auto& id : ids) {
    if (std::stoi(id.substr(id.rfind('-') + 1)) % 2 == parity) out.push_back(id);
  }
  return out;
}

class TailTest : public ::testing::Test {
 protected:
  void start(const std::string& other = {}, const std::string& plan_lines = {}) {
    TestConfig config;
    config.plans += plan_lines;
    config.other = other;
    server_ = std::make_unique<ServerProcess>(config.yaml());
    server_->start();
    key_ = server_->create_key("acme", "live");
    api_ = std::make_unique<ApiClient>(server_->port(), key_);
  }

  std::unique_ptr<ServerProcess> server_;
  std::string key_;
  std::unique_ptr<ApiClient> api_;
};

TEST_F(TailTest, ThreeClientsGetEveryMatchOnceInOrderAndACutClientResumesExactly) {
  start({}, "    tails: 10\n");
  TailClient all(server_->port(), key_, "");
  TailClient orders(server_->port(), key_, "stream=orders&fields=id,payload.n");
  TailClient cut(server_->port(), key_, "fields=id");
  for (auto* client : {&all, &orders, &cut}) {
    ASSERT_EQ(client->status(), 200) << client->head() << client->error_body();
    EXPECT_NE(client->head().find("Content-Type: text/event-stream"), std::string::npos);
    client->read_until([](const auto& events) { return !events.empty(); }, kWait);
    ASSERT_FALSE(client->events().empty());
    EXPECT_EQ(client->events().front().event, "open");
  }

  const auto first = write_events(*api_, "a", 100);
  all.read_messages(first.size(), kWait);
  orders.read_messages(first.size() / 2, kWait);
  cut.read_messages(first.size(), kWait);
  EXPECT_EQ(ids_of(all.messages()), first);
  EXPECT_EQ(ids_of(orders.messages()), of_stream(first, 0));
  EXPECT_EQ(ids_of(cut.messages()), first);
  // Trimmed to the fields asked for.
  const auto trimmed = boost::json::parse(orders.messages().front().data).as_object();
  EXPECT_EQ(trimmed.size(), 2U) << orders.messages().front().data;
  EXPECT_TRUE(trimmed.contains("payload"));

  const std::string resume_from = cut.messages().back().id;
  cut.close();
  const auto second = write_events(*api_, "b", 60);
  all.read_messages(first.size() + second.size(), kWait);
  TailClient resumed(server_->port(), key_, "fields=id", resume_from);
  ASSERT_EQ(resumed.status(), 200) << resumed.error_body();
  resumed.read_messages(second.size(), kWait);
  EXPECT_EQ(ids_of(resumed.messages()), second);

  std::vector<std::string> everything = first;
  everything.insert(everything.end(), second.begin(), second.end());
  EXPECT_EQ(ids_of(all.messages()), everything);
  // Every event's id resumes right after it: from the 10th, the rest.
  TailClient from_tenth(server_->port(), key_, "fields=id&since=" + all.messages()[9].id);
  from_tenth.read_messages(everything.size() - 10, kWait);
  EXPECT_EQ(ids_of(from_tenth.messages()),
            std::vector<std::string>(everything.begin() + 10, everything.end()));
  // since=<time>: every event made searchable since then.
  TailClient from_time(server_->port(), key_, "fields=id&since=now-1h");
  from_time.read_messages(everything.size(), kWait);
  EXPECT_EQ(ids_of(from_time.messages()), everything);
  // since=0 (the open event's id of an empty feed): from the first, in log order (each write
  // of orders before its sensors).
  TailClient from_zero(server_->port(), key_,
                       "fields=id&since=0&where=%7B%22payload.n%22%3A%7B%22lt%22%3A3%7D%7D");
  from_zero.read_messages(6, kWait);
  EXPECT_EQ(ids_of(from_zero.messages()),
            (std::vector<std::string>{"a-0", "a-2", "a-1", "b-0", "b-2", "b-1"}));
}

TEST_F(TailTest, AClientCutBeforeAnyEventResumesFromTheOpenEvent) {
  start();
  // Searchable before the tail opens: since=now starts after them.
  write_events(*api_, "old", 10, 25, 0, true);
  TailClient first(server_->port(), key_, "fields=id");
  ASSERT_EQ(first.status(), 200);
  first.read_until([](const auto& events) { return !events.empty(); }, kWait);
  ASSERT_EQ(first.events().front().event, "open");
  const std::string open_id = first.events().front().id;
  first.close();
  const auto written = write_events(*api_, "new", 10);
  TailClient resumed(server_->port(), key_, "fields=id", open_id);
  resumed.read_messages(written.size(), kWait);
  EXPECT_EQ(ids_of(resumed.messages()), written);
}

TEST_F(TailTest, AClientThatStopsReadingIsToldLaggedWithWhatItMissedAndAnExportOfExactlyThat) {
  start("tail:\n  max_lag: 200\n");
  auto slow = std::make_unique<TailClient>(server_->port(), key_, "stream=orders");
  ASSERT_EQ(slow->status(), 200);
  slow->read_until([](const auto& events) { return !events.empty(); }, kWait);
  // Far more than the socket buffers hold, so the server cannot write it all while the client
  // reads nothing.
  const auto written = write_events(*api_, "lag", 8000, 100, 4000);
  const auto expected = of_stream(written, 0);
  // What the client received on every connection. The server cuts a client that reads nothing for
  // longer than its write timeout (a slow machine may take that long to accept the writes): the
  // client then reconnects with the id of the last event it received, as EventSource does.
  std::vector<SseEvent> events;
  std::string last_id;  // of the last event received, on whichever connection
  const auto seen = [&](const std::vector<SseEvent>& more) {
    std::size_t count = 0;
    for (const std::vector<SseEvent>* list : {&std::as_const(events), &more}) {
      for (const auto& event : *list) {
        if (event.event.empty()) ++count;
        if (event.event == "lagged")
          count += boost::json::parse(event.data).at("missed").to_number<std::size_t>();
      }
    }
    return count;
  };
  for (int connection = 0; connection < 10; ++connection) {
    slow->read_until([&](const auto& more) { return seen(more) >= expected.size(); }, kWait);
    const bool done = seen(slow->events()) >= expected.size();
    for (const auto& event : slow->events()) {
      if (event.event == "open") continue;
      events.push_back(event);
      if (!event.id.empty()) last_id = event.id;
    }
    if (done || !slow->closed()) break;
    slow = std::make_unique<TailClient>(server_->port(), key_, "stream=orders", last_id);
    ASSERT_EQ(slow->status(), 200);
  }

  // Each lag's export fetches exactly what it skipped, in feed order: what was received, with
  // each lag replaced by its export, is every match once, in order.
  std::vector<std::string> union_;
  std::size_t received = 0;
  std::size_t lags = 0;
  for (const auto& event : events) {
    if (event.event.empty()) {
      union_.push_back(id_of(event));
      ++received;
    }
    if (event.event != "lagged") continue;
    ++lags;
    const auto data = boost::json::parse(event.data).as_object();
    const auto missed = data.at("missed").to_number<std::size_t>();
    EXPECT_GT(missed, 0U);
    const auto& export_ = data.at("export").as_object();
    const auto answer =
        api_->http().post("/v1/exports?cursor=" + std::string(export_.at("cursor").as_string()),
                          key_, boost::json::value(export_.at("body")));
    ASSERT_EQ(answer.status, 200) << answer.body.substr(0, 500);
    std::size_t exported = 0;
    for (std::size_t at = 0; at < answer.body.size(); ++exported) {
      const auto end = answer.body.find('\n', at);
      const auto line = boost::json::parse(answer.body.substr(at, end - at)).as_object();
      union_.push_back(std::string(line.at("record").at("id").as_string()));
      at = end + 1;
    }
    EXPECT_EQ(exported, missed);
  }
  EXPECT_GE(lags, 1U) << received << " events received, no lag";
  const auto [got, want] =
      std::mismatch(union_.begin(), union_.end(), expected.begin(), expected.end());
  EXPECT_EQ(union_, expected) << union_.size() << " delivered or exported, " << expected.size()
                              << " expected, " << received << " received, " << lags
                              << " lags; first difference at " << (got - union_.begin()) << ": "
                              << (got != union_.end() ? *got : "-") << " for "
                              << (want != expected.end() ? *want : "-");
}

TEST_F(TailTest, ThePlanCapsTailsPerKeyWith429BeforeAnyStream) {
  start({}, "    tails: 2\n");
  auto first = std::make_unique<TailClient>(server_->port(), key_, "");
  TailClient second(server_->port(), key_, "");
  ASSERT_EQ(first->status(), 200);
  ASSERT_EQ(second.status(), 200);
  TailClient third(server_->port(), key_, "");
  EXPECT_EQ(third.status(), 429);
  EXPECT_NE(third.head().find("Retry-After: "), std::string::npos) << third.head();
  EXPECT_NE(third.head().find("application/json"), std::string::npos) << third.head();
  EXPECT_NE(third.error_body().find("live tails open"), std::string::npos) << third.error_body();
  // Another key of the workspace has tails of its own.
  const std::string other = server_->create_key("acme", "live");
  TailClient others(server_->port(), other, "");
  EXPECT_EQ(others.status(), 200);
  // A closed tail frees its place.
  first->close();
  first.reset();
  int status = 0;
  for (int attempt = 0; attempt < 100 && status != 200; ++attempt) {
    TailClient again(server_->port(), key_, "");
    status = again.status();
    if (status != 200) std::this_thread::sleep_for(std::chrono::milliseconds(100));
  }
  EXPECT_EQ(status, 200);
}

TEST_F(TailTest, AnIdleTailGetsHeartbeats) {
  start("tail:\n  heartbeat: 1s\n");
  TailClient idle(server_->port(), key_, "");
  ASSERT_EQ(idle.status(), 200);
  idle.read_until([&](const auto&) { return idle.heartbeats() >= 2; }, kWait);
  EXPECT_GE(idle.heartbeats(), 2U);
}

TEST_F(TailTest, SigtermEndsEveryTailWithAFinalEvent) {
  start();
  TailClient one(server_->port(), key_, "");
  TailClient two(server_->port(), key_, "stream=orders");
  for (auto* client : {&one, &two}) {
    ASSERT_EQ(client->status(), 200);
    client->read_until([](const auto& events) { return !events.empty(); }, kWait);
  }
  EXPECT_EQ(server_->stop(), 0);
  for (auto* client : {&one, &two}) {
    client->read_until([](const auto&) { return false; }, kWait);
    ASSERT_FALSE(client->events().empty());
    EXPECT_EQ(client->events().back().event, "end");
    EXPECT_TRUE(client->ended());
  }
}

TEST_F(TailTest, BadTailsAreClear4xx) {
  start();
  const auto expect_status = [&](const std::string& query, int status, const std::string& text,
                                 const std::string& last_event_id = {}) {
    TailClient tail(server_->port(), key_, query, last_event_id);
    EXPECT_EQ(tail.status(), status) << query;
    EXPECT_NE(tail.error_body().find(text), std::string::npos)
        << query << ": " << tail.error_body();
  };
  expect_status("bogus=1", 400, "bogus");
  expect_status("since=yesterday-ish", 400, "since");
  expect_status("since=now&since=now", 400, "more than once");
  expect_status("where=%7Bnot", 400, "where");
  expect_status("where=%5B%5D", 400, "JSON object");
  expect_status("where=%7B%22payload.x%22%3A%7B%22nope%22%3A1%7D%7D", 400, "operator");
  expect_status("stream=a&where=%7B%22stream%22%3A%22b%22%7D", 400, "twice");
  expect_status("fields=id,,type", 400, "empty field");
  expect_status("fields=nosuchroot", 400, "fields");
  expect_status("since=2000-01-01T00:00:00Z", 403, "retention");
  expect_status("", 400, "Last-Event-ID", "not-an-id");
  expect_status("since=00000000", 400, "since");
  expect_status("since=ff" + std::string(30, '0'), 400, "change feed");
  TailClient anonymous(server_->port(), "key_live_nonsense", "");
  EXPECT_EQ(anonymous.status(), 401);
}

}  // namespace
}  // namespace eventsvc::testing
