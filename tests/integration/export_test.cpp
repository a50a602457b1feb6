// POST /v1/exports through the real binary (docs/api.md#export): 100,000 records streamed as
// NDJSON equal, record by record and byte for byte, what paging the same query returns; a client
// cut off mid-stream resumes from the last line it holds and receives exactly the rest; gzip
// decodes to the same records; CSV has one column per field; the export holds one concurrency
// lease until its last byte, and a client that stops reading holds no server thread. (Also run with
// the local durable log: export_integration_test_on_local_log.)
#include <gtest/gtest.h>
#include <zlib.h>

#include <algorithm>
#include <filesystem>
#include <iterator>
#include <string>
#include <string_view>
#include <thread>

#include "support/api_client.hpp"
#include "support/raw_connection.hpp"
#include "support/server_process.hpp"

namespace eventsvc::testing {
namespace {

// Under AddressSanitizer, a fifth: the sanitizer run checks memory, not volume.
#if defined(__SANITIZE_ADDRESS__)
constexpr int kRecords = 20000;
#else
constexpr int kRecords = 100000;
#endif

// The export's lines: each {"cursor":"…","record":{…}}.
struct Line {
  std::string cursor;
  std::string record;  // the bytes of the record, as the line holds them
};

std::vector<Line> lines_of(std::string_view body) {
  static constexpr std::string_view kHead = R"({"cursor":")";
  static constexpr std::string_view kMiddle = R"(","record":)";
  std::vector<Line> lines;
  while (!body.empty()) {
    const auto end = body.find('\n');
    if (end == std::string_view::npos) break;  // a line cut short: not one
    const std::string_view line = body.substr(0, end);
    body.remove_prefix(end + 1);
    EXPECT_TRUE(line.starts_with(kHead) && line.ends_with("}")) << line.substr(0, 200);
    const auto middle = line.find(kMiddle);
    if (!line.starts_with(kHead) || middle == std::string_view::npos) break;
    lines.push_back({std::string(line.substr(kHead.size(), middle - kHead.size())),
                     std::string(line.substr(middle + kMiddle.size(),
                                             line.size() - middle - kMiddle.size() - 1))});
  }
  return lines;
}

std::string gunzip(const std::string& compressed) {
  z_stream stream{};
  EXPECT_EQ(inflateInit2(&stream, 15 + 16), Z_OK);
  stream.next_in = reinterpret_cast<Bytef*>(const_cast<char*>(compressed.data()));
  stream.avail_in = static_cast<uInt>(compressed.size());
  std::string out;
  int result = Z_OK;
  while (result == Z_OK) {
    char buffer[65536];
    stream.next_out = reinterpret_cast<Bytef*>(buffer);
    stream.avail_out = sizeof buffer;
    result = inflate(&stream, Z_NO_FLUSH);
    out.append(buffer, sizeof buffer - stream.avail_out);
  }
  EXPECT_EQ(result, Z_STREAM_END);
  inflateEnd(&stream);
  return out;
}

// The body of a chunked response as far as it arrived.
std::string dechunked(const std::string& response) {
  std::size_t at = response.find("\r\n\r\n");
  if (at == std::string::npos) return {};
  at += 4;
  std::string body;
  for (;;) {
    const auto line_end = response.find("\r\n", at);
    if (line_end == std::string::npos) break;
    const std::size_t size = std::stoul(response.substr(at, line_end - at), nullptr, 16);
    if (size == 0) break;
    // A connection cut inside a chunk keeps the part that arrived: its whole lines count.
    const std::size_t arrived = std::min(size, response.size() - (line_end + 2));
    body.append(response, line_end + 2, arrived);
    if (arrived < size) break;
    at = line_end + 2 + size + 2;
  }
  return body;
}

class ExportTest : public ::testing::Test {
 protected:
  static void SetUpTestSuite() {
    TestConfig config;
    // One lease a key: an export that holds it leaves none for a query.
    config.plans.replace(config.plans.find("concurrency: 64"), 15, "concurrency: 1");
    server_ = new ServerProcess(config.yaml());
    server_->start();
    key_ = new std::string(server_->create_key("ex", "test"));
    base_ = now_ms() - 3600000;
    ApiClient api(server_->port(), *key_);
    std::vector<std::string> receipts;
    for (int first = 0; first < kRecords; first += 100) {
      json::array events;
      for (int i = first; i < first + 100; ++i) {
        json::object data{{"n", i}, {"word", "w" + std::to_string(i % 97)}};
        if (i % 1000 == 7) data["city"] = "Zürich, \"old\" town";
        // Two events share each millisecond: ties are ordered by id.
        events.emplace_back(make_event("e-" + std::to_string(i), "row", base_ + i / 2, data));
      }
      const auto response =
          api.ingest(make_batch("rows", std::move(events)), "export-" + std::to_string(first));
      ASSERT_EQ(response.status, 202) << response.body;
      receipts.emplace_back(response.json().at("receipt_id").as_string());
    }
    for (const auto& receipt : receipts)
      ASSERT_EQ(api.wait_final(receipt, std::chrono::seconds(120)).at("status"), "verified");
  }
  static void TearDownTestSuite() {
    delete server_;
    delete key_;
  }

  static json::object body() {
    return {{"source", "history"},
            {"where", json::object{{"timestamp", json::object{{"gte", iso(base_ - 1000)}}}}}};
  }
  // As a well-behaved client asks: a 429 (the lease of an export hung up on is free only once
  // the server's next write finds the client gone) is retried after its Retry-After.
  static HttpResponse exported(const json::object& request, const Headers& headers = {},
                               const std::string& query = "") {
    ApiClient api(server_->port(), *key_);
    HttpResponse response;
    for (int attempt = 0; attempt < 30; ++attempt) {
      response = api.http().post("/v1/exports" + query, *key_, json::value(request), headers);
      if (response.status != 429) break;
      std::this_thread::sleep_for(std::chrono::seconds(1));
    }
    return response;
  }
  // body()'s export as a client writes it by hand on a RawConnection, `headers` ("Name: value\r\n"
  // each) beside the key and the length.
  static std::string raw_export_request(std::string_view headers = "") {
    const std::string request_body = json::serialize(body());
    return "POST /v1/exports HTTP/1.1\r\nHost: localhost\r\nAuthorization: Bearer " + *key_ +
           "\r\n" + std::string(headers) +
           "Content-Length: " + std::to_string(request_body.size()) + "\r\n\r\n" + request_body;
  }
  // What paging the same query oldest first returns: each record as its answer's bytes.
  static std::vector<std::string> paged_records() {
    json::object request = body();
    request["order"] = "asc";
    request["limit"] = 1000;
    std::vector<std::string> records;
    std::string cursor;
    for (;;) {
      ApiClient api(server_->port(), *key_);
      const auto response = api.http().post(
          "/v1/query" + (cursor.empty() ? "" : "?cursor=" + cursor), *key_, json::value(request));
      EXPECT_EQ(response.status, 200) << response.body;
      if (response.status != 200) break;
      const auto answer = response.json();
      for (const auto& record : answer.at("results").as_array())
        records.push_back(sdk_json(record));
      const auto* next = answer.as_object().if_contains("next_cursor");
      if (next == nullptr) break;
      cursor = std::string(next->as_string());
    }
    return records;
  }
  static std::string sdk_json(const json::value& value) { return json::serialize(value); }

  static ServerProcess* server_;
  static std::string* key_;
  static std::int64_t base_;
};

ServerProcess* ExportTest::server_ = nullptr;
std::string* ExportTest::key_ = nullptr;
std::int64_t ExportTest::base_ = 0;

TEST_F(ExportTest, EveryRecordOnceInOrderEqualToWhatPagingReturns) {
  const auto response = exported(body());
  ASSERT_EQ(response.status, 200) << response.body.substr(0, 500);
  EXPECT_EQ(response.header("Content-Type"), "application/x-ndjson");
  EXPECT_EQ(response.header("Transfer-Encoding"), "chunked");
  const auto lines = lines_of(response.body);
  ASSERT_EQ(lines.size(), static_cast<std::size_t>(kRecords));
  const auto paged = paged_records();
  ASSERT_EQ(paged.size(), lines.size());
  std::size_t differing = 0;
  for (std::size_t i = 0; i < lines.size(); ++i) {
    if (lines[i].record != paged[i]) ++differing;
  }
  EXPECT_EQ(differing, 0U);
  EXPECT_EQ(json::parse(lines.front().record).at("id"), "e-0");
  EXPECT_EQ(json::parse(lines.back().record).at("id").as_string(),
            "e-" + std::to_string(kRecords - 1));
}

TEST_F(ExportTest, AClientCutOffResumesFromItsLastLineAndGetsExactlyTheRest) {
  // Read about 2 MB of the export by hand, then hang up.
  RawConnection connection(server_->port());
  ASSERT_TRUE(connection.start_tls());
  ASSERT_TRUE(connection.send(raw_export_request("Content-Type: application/json\r\n")));
  const auto head_and_some = connection.read_at_least(2 << 20, std::chrono::seconds(60));
  const auto held = lines_of(dechunked(head_and_some));
  ASSERT_GT(held.size(), 100U);
  ASSERT_LT(held.size(), static_cast<std::size_t>(kRecords));
  { RawConnection gone = std::move(connection); }

  const auto rest = exported(body(), {}, "?cursor=" + held.back().cursor);
  ASSERT_EQ(rest.status, 200) << rest.body.substr(0, 500);
  const auto resumed = lines_of(rest.body);
  ASSERT_EQ(held.size() + resumed.size(), static_cast<std::size_t>(kRecords));
  // The union is every record once, in order.
  for (std::size_t i = 0; i < resumed.size(); i += 997) {
    EXPECT_EQ(json::parse(resumed[i].record).at("id").as_string(),
              "e-" + std::to_string(held.size() + i));
  }
  EXPECT_EQ(json::parse(resumed.front().record).at("id").as_string(),
            "e-" + std::to_string(held.size()));

  // A resumed export's cursor is bound to its body like any other.
  json::object other = body();
  other["order"] = "desc";
  EXPECT_EQ(exported(other, {}, "?cursor=" + held.back().cursor).status, 400);
}

TEST_F(ExportTest, GzipDecodesToTheSameRecords) {
  const auto plain_body = exported(body()).body;
  const auto plain = lines_of(plain_body);
  const auto compressed = exported(body(), {{"Accept-Encoding", "gzip, deflate"}});
  ASSERT_EQ(compressed.status, 200);
  EXPECT_EQ(compressed.header("Content-Encoding"), "gzip");
  const auto decoded = lines_of(gunzip(compressed.body));
  ASSERT_EQ(decoded.size(), plain.size());
  for (std::size_t i = 0; i < plain.size(); ++i)
    ASSERT_EQ(decoded[i].record, plain[i].record) << i;
  EXPECT_LT(compressed.body.size() * 2, plain_body.size());  // it did compress
  EXPECT_NE(exported(body(), {{"Accept-Encoding", "gzip;q=0"}}).header("Content-Encoding"), "gzip");
}

TEST_F(ExportTest, CsvHasACursorAndOneColumnPerField) {
  json::object request = body();
  request["fields"] = json::array{"id", "payload.n", "payload.city"};
  const auto response = exported(request, {{"Accept", "text/csv"}});
  ASSERT_EQ(response.status, 200) << response.body.substr(0, 500);
  EXPECT_EQ(response.header("Content-Type"), "text/csv; charset=utf-8");
  std::vector<std::string> rows;
  std::size_t at = 0;
  while (at < response.body.size()) {
    const auto end = response.body.find("\r\n", at);
    rows.push_back(response.body.substr(at, end - at));
    at = end + 2;
  }
  ASSERT_EQ(rows.size(), static_cast<std::size_t>(kRecords) + 1);
  EXPECT_EQ(rows[0], "cursor,id,payload.n,payload.city");
  const std::string row = rows[8];  // e-7: a city with a comma and quotes
  EXPECT_TRUE(row.ends_with(R"(,e-7,7,"Zürich, ""old"" town")")) << row;
  EXPECT_TRUE(rows[1].ends_with(",e-0,0,")) << rows[1];

  request.erase("fields");
  const auto without_fields = exported(request, {{"Accept", "text/csv"}});
  EXPECT_EQ(without_fields.status, 400);
  EXPECT_NE(without_fields.body.find("fields"), std::string::npos);
}

TEST_F(ExportTest, AnExportHoldsOneLeaseUntilItsLastByte) {
  // A client that stops reading: the export waits on its socket, holding the key's one lease.
  RawConnection reader(server_->port());
  ASSERT_TRUE(reader.start_tls());
  ASSERT_TRUE(reader.send(raw_export_request()));
  ASSERT_FALSE(reader.read_at_least(1000, std::chrono::seconds(30)).empty());
  ApiClient api(server_->port(), *key_);
  const auto refused = api.query(json::object{{"limit", 1}});
  EXPECT_EQ(refused.status, 429) << refused.body;
  { RawConnection gone = std::move(reader); }
  // Hung up: the server finds out at its next write, and the lease is back.
  int status = 0;
  for (int attempt = 0; attempt < 100 && status != 200; ++attempt) {
    status = api.query(json::object{{"limit", 1}}).status;
    if (status != 200) std::this_thread::sleep_for(std::chrono::milliseconds(100));
  }
  EXPECT_EQ(status, 200);
}

std::size_t threads_of(pid_t pid) {
  const std::filesystem::directory_iterator tasks("/proc/" + std::to_string(pid) + "/task");
  return static_cast<std::size_t>(std::distance(tasks, std::filesystem::directory_iterator()));
}

TEST_F(ExportTest, AClientThatStopsReadingHoldsNoServerThread) {
  // Every thread an export starts has come and gone once.
  ASSERT_EQ(exported(body()).status, 200);
  const std::size_t idle = threads_of(server_->pid());
  RawConnection reader(server_->port());
  ASSERT_TRUE(reader.start_tls());
  ASSERT_TRUE(reader.send(raw_export_request("Connection: close\r\n")));
  const std::string first = reader.read_at_least(1000, std::chrono::seconds(30));
  ASSERT_FALSE(first.empty());
  // The server reads a few pages ahead of the client, then stops reading until it takes one:
  // the export waits on its socket with no thread of its own.
  std::size_t waiting = 0;
  for (int attempt = 0; attempt < 100; ++attempt) {
    waiting = threads_of(server_->pid());
    if (waiting <= idle) break;
    std::this_thread::sleep_for(std::chrono::milliseconds(100));
  }
  EXPECT_LE(waiting, idle);
  // It goes on when the client reads again: the whole export arrives.
  const std::string rest = reader.read_until_closed(std::chrono::seconds(120));
  EXPECT_EQ(lines_of(dechunked(first + rest)).size(), static_cast<std::size_t>(kRecords));
}

TEST_F(ExportTest, BadRequestsAreClear4xx) {
  json::object unknown = body();
  unknown["limit"] = 5;  // an export has no limit
  EXPECT_EQ(exported(unknown).status, 400);
  EXPECT_EQ(exported(json::object{{"source", "history"}}).status, 400);  // history needs a bound
  EXPECT_EQ(exported(body(), {}, "?cursor=c1.x.y").status, 400);
  EXPECT_EQ(exported(body(), {}, "?format=csv").status, 400);
  ApiClient reader(server_->port(), server_->create_key("ex", "test", "events:write"));
  EXPECT_EQ(reader.http().post("/v1/exports", reader.key(), json::value(body())).status, 403);
}

}  // namespace
}  // namespace eventsvc::testing
