// The request pipeline over real HTTPS: authentication, scopes, rate limits, concurrency leases,
// JSON errors for unknown routes, environments, connection handling and shutdown.
#include <Poco/Net/Context.h>
#include <Poco/Net/HTTPClientSession.h>
#include <Poco/Net/HTTPRequest.h>
#include <Poco/Net/HTTPResponse.h>
#include <Poco/Net/SecureStreamSocket.h>
#include <Poco/Net/Session.h>
#include <gtest/gtest.h>
#include <openssl/ssl.h>

#include <atomic>
#include <boost/json/parse.hpp>
#include <chrono>
#include <fstream>
#include <memory>
#include <sstream>
#include <thread>
#include <vector>

#include "support/https_client.hpp"
#include "support/server_process.hpp"

namespace eventsvc::testing {
namespace {

struct Route {
  const char* method;
  const char* path;
};

constexpr Route kRoutes[] = {
    {"POST", "/v1/events"},  {"GET", "/v1/receipts/req_0123456789abcdef"},
    {"POST", "/v1/search"},  {"POST", "/v1/query"},
    {"POST", "/v1/analyze"},
};

HttpResponse call(HttpsClient& client, const Route& route, const std::string& key) {
  Headers headers;
  if (!key.empty()) headers.emplace_back("Authorization", "Bearer " + key);
  headers.emplace_back("Content-Type", "application/json");
  headers.emplace_back("Idempotency-Key", "integration-key-1");
  const std::string body = std::string(route.method) == "POST" ? "{}" : "";
  return client.request(route.method, route.path, body, headers);
}

void expect_error_body(const HttpResponse& response, int status) {
  EXPECT_EQ(response.status, status) << response.body;
  EXPECT_EQ(response.header("content-type"), "application/json");
  const auto body = response.json().as_object();
  EXPECT_EQ(body.at("statusCode").as_int64(), status);
  EXPECT_TRUE(body.at("statusMessage").is_string());
  EXPECT_FALSE(body.at("message").as_string().empty());
  EXPECT_TRUE(body.at("data").is_object());
}

void expect_rate_headers(const HttpResponse& response) {
  EXPECT_TRUE(response.has_header("X-RateLimit-Limit")) << response.body;
  EXPECT_TRUE(response.has_header("X-RateLimit-Remaining")) << response.body;
  EXPECT_TRUE(response.has_header("X-RateLimit-Reset")) << response.body;
}

class FoundationTest : public ::testing::Test {
 protected:
  static void SetUpTestSuite() {
    TestConfig config;
    config.plans += R"(  tiny:
    requests_per_minute: {ingest: 3, receipts: 3, search: 3, query: 3, analyze: 3}
    concurrency: 1
    retention_days: 30
  one_at_a_time:
    requests_per_minute: {ingest: 100000, receipts: 100000, search: 100000, query: 100000, analyze: 100000}
    concurrency: 1
    retention_days: 30
)";
    server_ = new ServerProcess(config.yaml());
    server_->start();
  }
  static void TearDownTestSuite() {
    delete server_;
    server_ = nullptr;
  }

  static ServerProcess* server_;
};

ServerProcess* FoundationTest::server_ = nullptr;

TEST_F(FoundationTest, MissingWrongAndRevokedKeysGet401OnEveryRoute) {
  HttpsClient client(server_->port());
  const std::string key = server_->create_key("ws401", "test");
  const auto list = server_->cli({"keys", "list", "--json"});
  ASSERT_EQ(list.exit_code, 0) << list.err;
  const std::string id = key.substr(9, 8);
  ASSERT_EQ(server_->cli({"keys", "revoke", id}).exit_code, 0);
  for (const auto& route : kRoutes) {
    SCOPED_TRACE(route.path);
    const auto missing = call(client, route, "");
    expect_error_body(missing, 401);
    expect_rate_headers(missing);
    EXPECT_NE(missing.json().at("message").as_string().find("Authorization: Bearer"),
              std::string::npos);
    expect_error_body(call(client, route, "key_test_0123456789abcdefABCDEF0123456789"), 401);
    expect_error_body(call(client, route, "not-a-key"), 401);
    const auto revoked = call(client, route, key);
    expect_error_body(revoked, 401);
    EXPECT_EQ(revoked.json().at("message").as_string(), "invalid API key");
  }
}

TEST_F(FoundationTest, TwoAuthorizationHeadersGet401EvenWithValidKeys) {
  const std::string key = server_->create_key("ws-two", "test");
  for (const std::string& second :
       {key, std::string("key_test_0123456789abcdefABCDEF0123456789")}) {
    const std::string answer = raw_tls_exchange(
        server_->port(), "POST /v1/query HTTP/1.1\r\nHost: 127.0.0.1\r\nAuthorization: Bearer " +
                             key + "\r\nauthorization: Bearer " + second +
                             "\r\nContent-Type: application/json\r\nContent-Length: "
                             "2\r\nConnection: close\r\n\r\n{}");
    EXPECT_TRUE(answer.starts_with("HTTP/1.1 401")) << answer;
    EXPECT_NE(answer.find("send one Authorization header, not 2"), std::string::npos) << answer;
    EXPECT_NE(answer.find("X-RateLimit-Remaining"), std::string::npos) << answer;
  }
}

TEST_F(FoundationTest, MissingScopeGets403OnEveryRoute) {
  HttpsClient client(server_->port());
  const std::string write_only = server_->create_key("ws403", "test", "events:write");
  const std::string read_only = server_->create_key("ws403", "test", "events:read");
  const std::string no_scopes = server_->create_key("ws403", "test", "");
  for (const auto& route : kRoutes) {
    SCOPED_TRACE(route.path);
    const auto response = call(client, route, no_scopes);
    expect_error_body(response, 403);
    expect_rate_headers(response);
    EXPECT_TRUE(response.json().at("data").at("required_scopes").is_array());
  }
  expect_error_body(call(client, kRoutes[0], read_only), 403);
  for (const auto& route : {kRoutes[2], kRoutes[3], kRoutes[4]}) {
    const auto response = call(client, route, write_only);
    expect_error_body(response, 403);
    EXPECT_EQ(response.json().at("message").as_string(), "this key lacks the scope events:read");
  }
  // Receipt lookup accepts either scope.
  EXPECT_NE(call(client, kRoutes[1], read_only).status, 403);
  EXPECT_NE(call(client, kRoutes[1], write_only).status, 403);
}

TEST_F(FoundationTest, RateLimitHeadersOnEveryResponse) {
  HttpsClient client(server_->port());
  const std::string key = server_->create_key("wsheaders", "test");
  std::vector<HttpResponse> responses;
  for (const auto& route : kRoutes)
    responses.push_back(call(client, route, key));
  responses.push_back(client.request("GET", "/nowhere"));
  responses.push_back(client.request("DELETE", "/v1/search"));
  responses.push_back(call(client, kRoutes[2], "bad"));
  for (const auto& response : responses) {
    expect_rate_headers(response);
    EXPECT_GE(std::stoi(response.header("X-RateLimit-Limit")), 1);
    EXPECT_GE(std::stoll(response.header("X-RateLimit-Reset")), 1700000000);
  }
}

TEST_F(FoundationTest, SpentPlanLimitGives429WithRetryAfter) {
  HttpsClient client(server_->port());
  const std::string key = server_->create_key("wsrate", "test", "events:read,events:write", "tiny");
  for (int remaining = 2; remaining >= 0; --remaining) {
    const auto response = call(client, kRoutes[3], key);
    EXPECT_NE(response.status, 429);
    EXPECT_EQ(response.header("X-RateLimit-Limit"), "3");
    EXPECT_EQ(response.header("X-RateLimit-Remaining"), std::to_string(remaining));
  }
  const auto limited = call(client, kRoutes[3], key);
  expect_error_body(limited, 429);
  EXPECT_EQ(limited.header("X-RateLimit-Remaining"), "0");
  ASSERT_TRUE(limited.has_header("Retry-After"));
  EXPECT_GE(std::stoi(limited.header("Retry-After")), 1);
  EXPECT_LE(std::stoi(limited.header("Retry-After")), 20);
  // Buckets are per operation: search is untouched.
  EXPECT_NE(call(client, kRoutes[2], key).status, 429);
}

TEST_F(FoundationTest, ExhaustedConcurrencyLeasesGive429) {
  // A plan whose rate limits a probe cannot exhaust before the slow request holds the lease (on a
  // loaded machine that can take a while): every 429 below is the lease's.
  const std::string key = server_->create_key("wslease", "test", "events:read", "one_at_a_time");
  // A search whose body trickles in holds the tenant's only lease while the server waits for it.
  Poco::Net::Context::Params params;
  params.verificationMode = Poco::Net::Context::VERIFY_NONE;
  Poco::Net::Context::Ptr context =
      new Poco::Net::Context(Poco::Net::Context::TLS_CLIENT_USE, params);
  const std::string head =
      "POST /v1/analyze HTTP/1.1\r\nHost: localhost\r\nAuthorization: Bearer " + key +
      "\r\nContent-Type: application/json\r\nContent-Length: 2\r\n\r\n{";
  auto open_slow = [&] {
    auto socket = std::make_unique<Poco::Net::SecureStreamSocket>(
        Poco::Net::SocketAddress("127.0.0.1", static_cast<Poco::UInt16>(server_->port())), context);
    socket->sendBytes(head.data(), static_cast<int>(head.size()));
    return socket;
  };
  auto slow = open_slow();

  // Probes until one finds the lease held. A probe that holds the lease itself when the slow
  // head arrives gets that one refused (it is answered at once): then the slow request is sent
  // again, so the outcome does not depend on which of the two the server reached first.
  HttpsClient client(server_->port());
  HttpResponse limited;
  for (int attempt = 0; attempt < 500; ++attempt) {
    limited = call(client, kRoutes[2], key);
    if (limited.status == 429) break;
    if (slow->poll(Poco::Timespan(0), Poco::Net::Socket::SELECT_READ)) slow = open_slow();
    std::this_thread::sleep_for(std::chrono::milliseconds(20));
  }
  expect_error_body(limited, 429);
  EXPECT_NE(limited.json().at("message").as_string().find("concurrency limit of 1"),
            std::string::npos);
  EXPECT_EQ(limited.header("Retry-After"), "1");
  EXPECT_EQ(limited.header("X-Concurrency-Limit"), "1");

  slow->sendBytes("}", 1);
  char buffer[2048];
  const int n = slow->receiveBytes(buffer, sizeof buffer);
  const std::string answer(buffer, static_cast<std::size_t>(std::max(n, 0)));
  EXPECT_NE(answer.find("X-Concurrency-Limit: 1"), std::string::npos) << answer;
  EXPECT_NE(answer.find("X-Concurrency-Active: 1"), std::string::npos) << answer;
  // The lease is back: a new request gets through the limiter.
  HttpResponse after;
  for (int attempt = 0; attempt < 100; ++attempt) {
    after = call(client, kRoutes[2], key);
    if (after.status != 429) break;
    std::this_thread::sleep_for(std::chrono::milliseconds(20));
  }
  EXPECT_NE(after.status, 429);
}

TEST_F(FoundationTest, UnknownPathsAndMethodsAnswerJson) {
  HttpsClient client(server_->port());
  const auto missing = client.request("GET", "/v1/nothing");
  expect_error_body(missing, 404);
  expect_rate_headers(missing);
  const auto root = client.request("GET", "/");
  expect_error_body(root, 404);
  const auto wrong = client.request("GET", "/v1/events");
  expect_error_body(wrong, 405);
  EXPECT_EQ(wrong.header("Allow"), "POST");
  EXPECT_EQ(wrong.json().at("data").at("allowed_methods"), (boost::json::array{"POST"}));
  const auto put = client.request("PUT", "/v1/receipts/req_0123456789abcdef", "{}");
  expect_error_body(put, 405);
  EXPECT_EQ(put.header("Allow"), "GET");
}

// A client generator points at a running server: the OpenAPI document, without a key.
TEST_F(FoundationTest, TheApiDescribesItselfWithoutAKey) {
  HttpsClient client(server_->port());
  const auto document = client.request("GET", "/openapi.yaml");
  ASSERT_EQ(document.status, 200);
  EXPECT_EQ(document.header("content-type"), "application/yaml");
  std::ifstream in(EVENTSVC_OPENAPI_YAML);
  std::stringstream file;
  file << in.rdbuf();
  EXPECT_EQ(document.body, file.str());  // byte for byte docs/openapi.yaml
  expect_rate_headers(document);         // charged to the address, like other keyless requests
  const auto head = client.request("HEAD", "/openapi.yaml");
  EXPECT_EQ(head.status, 200);
  EXPECT_TRUE(head.body.empty());
  const auto post = client.request("POST", "/openapi.yaml", "{}");
  expect_error_body(post, 405);
  EXPECT_EQ(post.header("Allow"), "GET, HEAD");
  EXPECT_EQ(post.json().at("data").at("allowed_methods"), (boost::json::array{"GET", "HEAD"}));
}

TEST_F(FoundationTest, LiveAndTestKeysResolveToDifferentEnvironments) {
  HttpsClient client(server_->port());
  const std::string test_key = server_->create_key("wsenv", "test", "events:read", "tiny");
  const std::string live_key = server_->create_key("wsenv", "live", "events:read", "tiny");
  EXPECT_EQ(test_key.substr(0, 9), "key_test_");
  EXPECT_EQ(live_key.substr(0, 9), "key_live_");
  for (int i = 0; i < 3; ++i)
    call(client, kRoutes[4], test_key);
  EXPECT_EQ(call(client, kRoutes[4], test_key).status, 429);
  // The same workspace's live environment has its own limits.
  const auto live = call(client, kRoutes[4], live_key);
  EXPECT_NE(live.status, 429);
  EXPECT_EQ(live.header("X-RateLimit-Remaining"), "2");
  const std::string log = server_->log();
  EXPECT_NE(log.find(R"("workspace":"wsenv","env":"test")"), std::string::npos);
  EXPECT_NE(log.find(R"("workspace":"wsenv","env":"live")"), std::string::npos);
}

TEST_F(FoundationTest, BodiesAreBoundedAndNeedALength) {
  const std::string key = server_->create_key("wsbody", "test");
  const std::string raw = "POST /v1/search HTTP/1.1\r\nHost: localhost\r\nAuthorization: Bearer " +
                          key + "\r\nConnection: close\r\n\r\n";
  const std::string answer = raw_tls_exchange(server_->port(), raw);
  EXPECT_EQ(answer.rfind("HTTP/1.1 411", 0), 0U) << answer;
  EXPECT_NE(answer.find("\"statusCode\":411"), std::string::npos) << answer;

  // A declared length over the limit is answered at once, without waiting for the bytes: here
  // 2,000,000 are declared and 10 sent. A server that waited for them would give up on the body
  // after 40 s (read_timeout_s, 10, plus a second per 64 KiB declared); the client waits 20.
  const std::string oversized = raw_tls_exchange(
      server_->port(),
      "POST /v1/events HTTP/1.1\r\nHost: localhost\r\nAuthorization: Bearer " + key +
          "\r\nIdempotency-Key: oversized-1\r\nContent-Length: 2000000\r\n\r\n0123456789",
      20000);
  EXPECT_EQ(oversized.rfind("HTTP/1.1 413", 0), 0U) << oversized;
  EXPECT_NE(oversized.find("\"limit_bytes\":1048576"), std::string::npos) << oversized;
}

TEST_F(FoundationTest, MalformedRequestHeadsGetTheJsonErrorBody) {
  struct Case {
    std::string name;
    std::string head;
    std::string status;
    std::string message;
  };
  const std::string post = "POST /v1/query HTTP/1.1\r\nHost: localhost\r\n";
  const std::vector<Case> cases = {
      {"non-numeric length", post + "Content-Length: abc\r\n\r\n", "400",
       "Content-Length must be one decimal number of bytes"},
      {"negative length", post + "Content-Length: -5\r\n\r\n", "400",
       "Content-Length must be one decimal number of bytes"},
      {"overflowing length", post + "Content-Length: 99999999999999999999999\r\n\r\n", "400",
       "Content-Length must be one decimal number of bytes"},
      {"two lengths", post + "Content-Length: 2\r\nContent-Length: 3\r\n\r\n{}", "400",
       "Content-Length must be one decimal number of bytes"},
      {"100 kB URL", "GET /v1/receipts/" + std::string(100000, 'a') + " HTTP/1.1\r\n\r\n", "431",
       "larger than 65536 bytes"},
      {"1 MB header", post + "X-Big: " + std::string(1 << 20, 'b') + "\r\n\r\n", "431",
       "larger than 65536 bytes"},
      {"not HTTP", "HELLO THERE\r\n\r\n", "400", "malformed request head"},
  };
  std::string many_headers = post;
  for (int i = 0; i < 10000; ++i)
    many_headers += "X-H" + std::to_string(i) + ": v\r\n";
  std::vector<Case> all = cases;
  all.push_back({"10,000 headers", many_headers + "\r\n", "431", "larger than 65536 bytes"});
  for (const Case& bad : all) {
    SCOPED_TRACE(bad.name);
    const std::string answer = raw_tls_exchange(server_->port(), bad.head, 10000);
    EXPECT_TRUE(answer.starts_with("HTTP/1.1 " + bad.status)) << answer.substr(0, 300);
    EXPECT_NE(answer.find("\"statusCode\":" + bad.status), std::string::npos)
        << answer.substr(0, 300);
    EXPECT_NE(answer.find(bad.message), std::string::npos) << answer.substr(0, 300);
    EXPECT_NE(answer.find("X-RateLimit-Remaining"), std::string::npos) << answer.substr(0, 300);
    EXPECT_NE(answer.find("Connection: close"), std::string::npos) << answer.substr(0, 300);
  }
}

TEST_F(FoundationTest, AccessLogNeverHoldsKeys) {
  HttpsClient client(server_->port());
  const std::string key = server_->create_key("wslog", "test");
  call(client, kRoutes[2], key);
  call(client, kRoutes[2], key + "x");
  EXPECT_EQ(server_->log().find(key.substr(9)), std::string::npos);
}

TEST(Foundation, AnonymousRequestsAreLimitedPerClient) {
  TestConfig config;
  config.limits = "  anonymous_per_minute: 3\n";
  ServerProcess server(config.yaml());
  server.start();
  HttpsClient client(server.port());
  for (int i = 0; i < 3; ++i) {
    const auto response = client.request("POST", "/v1/search", "{}");
    EXPECT_EQ(response.status, 401);
    EXPECT_EQ(response.header("X-RateLimit-Limit"), "3");
  }
  const auto limited = client.request("POST", "/v1/search", "{}");
  expect_error_body(limited, 429);
  EXPECT_TRUE(limited.has_header("Retry-After"));
  // Unroutable requests draw from the same bucket.
  expect_error_body(client.request("GET", "/nowhere"), 429);
  // A valid key is not affected.
  const std::string key = server.create_key("ws", "test");
  EXPECT_NE(call(client, kRoutes[2], key).status, 429);
}

TEST(Foundation, MoreClientsThanWorkerThreadsAreAllServed) {
  TestConfig config;
  config.server = "  listen: 127.0.0.1:0\n  threads: 2\n  queue: 64\n";
  ServerProcess server(config.yaml());
  server.start();
  const std::string key = server.create_key("wsthreads", "test");
  constexpr int kClients = 8;
  constexpr int kRequests = 10;
  std::atomic<int> answered{0};
  std::vector<std::thread> clients;
  for (int c = 0; c < kClients; ++c) {
    clients.emplace_back([&] {
      HttpsClient client(server.port());
      for (int r = 0; r < kRequests; ++r) {
        // An empty search body: every request gets the same complete 400 answer.
        const auto response = call(client, kRoutes[2], key);
        if (response.status == 400 && response.json().at("statusCode").as_int64() == 400) {
          ++answered;
        }
      }
    });
  }
  for (auto& thread : clients)
    thread.join();
  EXPECT_EQ(answered.load(), kClients * kRequests);
}

TEST(Foundation, RefusesTlsOlderThan12) {
  ServerProcess server(test_config());
  server.start();
  Poco::Net::Context::Params params;
  params.verificationMode = Poco::Net::Context::VERIFY_NONE;
  params.cipherList = "DEFAULT:@SECLEVEL=0";
  Poco::Net::Context::Ptr old = new Poco::Net::Context(Poco::Net::Context::TLS_CLIENT_USE, params);
  old->disableProtocols(Poco::Net::Context::PROTO_TLSV1_2 | Poco::Net::Context::PROTO_TLSV1_3);
  EXPECT_ANY_THROW({
    Poco::Net::SecureStreamSocket socket(
        Poco::Net::SocketAddress("127.0.0.1", static_cast<Poco::UInt16>(server.port())), old);
    socket.completeHandshake();
  });
  // The same client allowed TLS 1.2 connects.
  Poco::Net::Context::Ptr modern =
      new Poco::Net::Context(Poco::Net::Context::TLS_CLIENT_USE, params);
  modern->requireMinimumProtocol(Poco::Net::Context::PROTO_TLSV1_2);
  EXPECT_NO_THROW({
    Poco::Net::SecureStreamSocket socket(
        Poco::Net::SocketAddress("127.0.0.1", static_cast<Poco::UInt16>(server.port())), modern);
    socket.completeHandshake();
  });
}

TEST(Foundation, PrefersAes128GcmUnderTls13) {
  ServerProcess server(test_config());
  server.start();
  // A client with OpenSSL's own order, which names AES-256-GCM first: the server's order decides.
  Poco::Net::Context::Params params;
  params.verificationMode = Poco::Net::Context::VERIFY_NONE;
  Poco::Net::Context::Ptr context =
      new Poco::Net::Context(Poco::Net::Context::TLS_CLIENT_USE, params);
  Poco::Net::SecureStreamSocket socket(
      Poco::Net::SocketAddress("127.0.0.1", static_cast<Poco::UInt16>(server.port())), context);
  socket.completeHandshake();
  const SSL_SESSION* session = socket.currentSession()->sslSession();
  ASSERT_NE(session, nullptr);
  EXPECT_EQ(SSL_SESSION_get_protocol_version(session), TLS1_3_VERSION);
  EXPECT_STREQ(SSL_CIPHER_get_name(SSL_SESSION_get0_cipher(session)), "TLS_AES_128_GCM_SHA256");
}

TEST(Foundation, OptionalPlainHttpListenerForAProxy) {
  TestConfig config;
  config.server = "  listen: 127.0.0.1:0\n  http_listen: 127.0.0.1:0\n";
  ServerProcess server(config.yaml());
  server.start();
  const std::string log = server.log();
  const std::string marker = "\"http\":\"http://127.0.0.1:";
  const auto at = log.find(marker);
  ASSERT_NE(at, std::string::npos) << log;
  const int port = std::stoi(log.substr(at + marker.size()));
  Poco::Net::HTTPClientSession session("127.0.0.1", static_cast<Poco::UInt16>(port));
  Poco::Net::HTTPRequest request("POST", "/v1/search", Poco::Net::HTTPMessage::HTTP_1_1);
  request.set("Authorization", "Bearer " + server.create_key("plain", "test"));
  const std::string body = R"({"query":"anything"})";
  request.setContentLength(static_cast<std::streamsize>(body.size()));
  session.sendRequest(request) << body;
  Poco::Net::HTTPResponse response;
  std::istream& in = session.receiveResponse(response);
  std::string answer((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  EXPECT_EQ(response.getStatus(), 200) << answer;
  EXPECT_NE(answer.find("\"count\":0"), std::string::npos) << answer;
  EXPECT_TRUE(response.has("X-RateLimit-Limit"));
}

TEST(Foundation, ABodyThatStopsArrivingEndsItsConnection) {
  TestConfig config;
  config.server += "  read_timeout_s: 1\n";
  ServerProcess server(config.yaml());
  server.start();
  const std::string key = server.create_key("slow-body", "test");
  // 500 bytes declared, 11 sent: with a key the body does not arrive in time (408); without one
  // the 401 is answered before it, and the rest of the body cannot be dropped. Either way the
  // connection is closed after the answer, not kept with unread bytes on it.
  for (const std::string& authorization :
       {"Authorization: Bearer " + key + "\r\n", std::string()}) {
    const std::string answer = raw_tls_exchange(
        server.port(),
        "POST /v1/query HTTP/1.1\r\nHost: localhost\r\n" + authorization +
            "Content-Type: application/json\r\nContent-Length: 500\r\n\r\n{\"limit\": 1",
        20000);
    EXPECT_EQ(answer.rfind(authorization.empty() ? "HTTP/1.1 401" : "HTTP/1.1 408", 0), 0U)
        << answer;
    EXPECT_NE(answer.find("Connection: close"), std::string::npos) << answer;
  }
}

TEST(Foundation, SigtermStopsGracefullyWithExitZero) {
  ServerProcess server(test_config());
  server.start();
  HttpsClient client(server.port());
  EXPECT_EQ(client.request("GET", "/").status, 404);
  EXPECT_EQ(server.stop(), 0);
  EXPECT_NE(server.log().find("\"message\":\"stopped\""), std::string::npos);
}

TEST(Foundation, BootstrapKeyIsPrintedOnceAndWorks) {
  ServerProcess server(test_config());
  server.start({"--bootstrap-key"});
  const std::string log = server.log();
  const auto at = log.find("key_test_");
  ASSERT_NE(at, std::string::npos) << log;
  const std::string key = log.substr(at, 9 + 32);
  EXPECT_NE(log.find("curl -sk https://127.0.0.1:" + std::to_string(server.port()) + "/v1/events"),
            std::string::npos);
  HttpsClient client(server.port());
  EXPECT_NE(call(client, kRoutes[2], key).status, 401);
  // A restart does not make (or show) another key.
  ASSERT_EQ(server.stop(), 0);
  const std::size_t before = server.log().size();
  server.start({"--bootstrap-key"});
  const std::string second = server.log().substr(before);
  EXPECT_EQ(second.find("key_test_"), std::string::npos) << second;
  EXPECT_NE(second.find("Keys already exist"), std::string::npos) << second;
  const auto keys = server.cli({"keys", "list", "--json"});
  EXPECT_EQ(boost::json::parse(keys.out).as_array().size(), 1U);
}

}  // namespace
}  // namespace eventsvc::testing
