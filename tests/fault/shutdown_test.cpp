// SIGTERM ends the server whatever its clients do: one connection that sent half a request head
// and then nothing, one idle keep-alive connection, and a connection that opened TCP and never
// started TLS. None has a request under way, so all three are closed at once (the log counts
// them), not waited for through server.shutdown_grace_s; the exit status is 0, the log says
// "stopped" (modules stopped, storage closed), and what was acknowledged is there after a restart.
#include <Poco/Net/SocketAddress.h>
#include <Poco/Net/StreamSocket.h>
#include <gtest/gtest.h>

#include <chrono>
#include <future>
#include <thread>

#include "support/api_client.hpp"
#include "support/server_process.hpp"

namespace eventsvc::testing {
namespace {

TEST(Shutdown, SigtermClosesConnectionsWithoutARequestAtOnce) {
  constexpr int kGraceSeconds = 2;
  TestConfig config;
  config.server += "  shutdown_grace_s: " + std::to_string(kGraceSeconds) + "\n";
  ServerProcess server(config.yaml());
  server.start();
  const std::string key = server.create_key("shutdown", "test");

  // Idle keep-alive: one answered request, then the connection stays open.
  ApiClient idle(server.port(), key);
  idle.ingest_verified(make_batch("s", json::array{make_event("kept", "t", now_ms(), 1)}),
                       "before-sigterm");
  // Half a request head, then silence (the client waits up to 20 s for the server to close).
  auto half_head = std::async(std::launch::async, [port = server.port()] {
    return raw_tls_exchange(port, "POST /v1/query HTTP/1.1\r\nHost: 127.0.0.1\r\nAuthoriz", 20000);
  });
  // TCP open, no TLS handshake ever.
  Poco::Net::StreamSocket silent(
      Poco::Net::SocketAddress("127.0.0.1", static_cast<Poco::UInt16>(server.port())));
  std::this_thread::sleep_for(std::chrono::milliseconds(300));  // all three are being served

  const int status = server.stop();
  EXPECT_EQ(status, 0) << server.log();
  EXPECT_NE(server.log().find("stopping: closed 3 connections waiting for a client; 0 requests "
                              "under way have up to 2 s to finish"),
            std::string::npos)
      << server.log();
  EXPECT_NE(server.log().find("\"message\":\"stopped\""), std::string::npos) << server.log();
  half_head.wait();

  server.start();
  const auto kept =
      ApiClient(server.port(), key).query(json::object{{"where", json::object{{"id", "kept"}}}});
  ASSERT_EQ(kept.status, 200) << kept.body;
  EXPECT_EQ(kept.json().at("count"), 1) << kept.body;
}

}  // namespace
}  // namespace eventsvc::testing
