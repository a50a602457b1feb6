#include "support/https_client.hpp"

#include <Poco/Net/Context.h>
#include <Poco/Net/HTTPClientSession.h>
#include <Poco/Net/HTTPRequest.h>
#include <Poco/Net/HTTPResponse.h>
#include <Poco/Net/HTTPSClientSession.h>
#include <Poco/Net/SecureStreamSocket.h>
#include <Poco/StreamCopier.h>
#include <unistd.h>

#include <algorithm>
#include <boost/json/parse.hpp>
#include <boost/json/serialize.hpp>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <mutex>
#include <sstream>

namespace eventsvc::testing {

namespace {

Poco::Net::Context::Ptr client_context() {
  static const Poco::Net::Context::Ptr context = [] {
    Poco::Net::Context::Params params;
    params.verificationMode = Poco::Net::Context::VERIFY_NONE;  // the server's cert is self-signed
    params.loadDefaultCAs = false;
    return Poco::Net::Context::Ptr(
        new Poco::Net::Context(Poco::Net::Context::TLS_CLIENT_USE, params));
  }();
  return context;
}

std::string lower(std::string text) {
  std::transform(text.begin(), text.end(), text.begin(),
                 [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
  return text;
}

}  // namespace

boost::json::value HttpResponse::json() const {
  return boost::json::parse(body);
}

bool HttpResponse::has_header(const std::string& name) const {
  return headers.contains(lower(name));
}

std::string HttpResponse::header(const std::string& name) const {
  const auto it = headers.find(lower(name));
  return it == headers.end() ? std::string() : it->second;
}

HttpsClient::HttpsClient(int port, bool tls) {
  const auto to = static_cast<Poco::UInt16>(port);
  if (tls) {
    session_ = std::make_unique<Poco::Net::HTTPSClientSession>("127.0.0.1", to, client_context());
  } else {
    session_ = std::make_unique<Poco::Net::HTTPClientSession>("127.0.0.1", to);
  }
  session_->setKeepAlive(true);
  session_->setTimeout(Poco::Timespan(60, 0));
}

HttpsClient::~HttpsClient() = default;

namespace {

// With EVENTSVC_CONTRACT_LOG set (a directory), every answer of the public API is appended to
// <dir>/<pid>.jsonl, for the contract test to check against docs/openapi.yaml once every test
// has run. The admin listener's pages (/healthz, /readyz, /metrics, /admin/...) are not the public
// API (docs/operations.md describes them), nor are the console's files (docs/console.md).
void record_for_contract(const std::string& method, const std::string& path,
                         const HttpResponse& response) {
  const char* directory = std::getenv("EVENTSVC_CONTRACT_LOG");
  if (directory == nullptr || *directory == '\0') return;
  const std::string bare = path.substr(0, path.find('?'));
  if (bare == "/healthz" || bare == "/readyz" || bare == "/metrics" ||
      bare.starts_with("/admin/") || bare == "/console" || bare.starts_with("/console/"))
    return;
  static std::mutex mutex;
  const std::lock_guard lock(mutex);
  static std::ofstream out = [&] {  // opened once per test process
    std::filesystem::create_directories(directory);
    return std::ofstream(std::filesystem::path(directory) / (std::to_string(::getpid()) + ".jsonl"),
                         std::ios::app);
  }();
  // What is not JSON (streamed exports: tens of megabytes, gzip) is checked by its type alone.
  const std::string type = response.header("content-type");
  const bool json_body = type.empty() || type.starts_with("application/json");
  boost::json::object line{{"method", method},
                           {"path", bare},
                           {"status", response.status},
                           {"content_type", type},
                           {"body", json_body ? response.body : std::string()}};
  out << boost::json::serialize(line) << "\n" << std::flush;
}

}  // namespace

HttpResponse HttpsClient::request(const std::string& method, const std::string& path,
                                  const std::string& body, const Headers& headers) {
  Poco::Net::HTTPRequest request(method, path, Poco::Net::HTTPMessage::HTTP_1_1);
  request.setKeepAlive(true);
  bool has_length = false;
  for (const auto& [name, value] : headers) {
    request.set(name, value);
    has_length =
        has_length || lower(name) == "content-length" || lower(name) == "transfer-encoding";
  }
  if (!body.empty() || method == "POST") {
    if (!has_length) request.setContentLength(static_cast<std::streamsize>(body.size()));
  }
  HttpResponse result;
  for (int attempt = 0; attempt < 2; ++attempt) {
    try {
      std::ostream& out = session_->sendRequest(request);
      out << body;
      Poco::Net::HTTPResponse response;
      std::istream& in = session_->receiveResponse(response);
      std::ostringstream text;
      Poco::StreamCopier::copyStream(in, text);
      result.status = static_cast<int>(response.getStatus());
      for (const auto& [name, value] : response)
        result.headers[lower(name)] = value;
      result.body = text.str();
      record_for_contract(method, path, result);
      return result;
    } catch (const Poco::Exception&) {
      // The server may close an idle keep-alive connection; retry once on a fresh one.
      session_->reset();
      if (attempt == 1) throw;
    }
  }
  return result;
}

HttpResponse HttpsClient::post(const std::string& path, const std::string& key,
                               const std::string& body, Headers headers) {
  headers.emplace_back("Authorization", "Bearer " + key);
  headers.emplace_back("Content-Type", "application/json");
  return request("POST", path, body, headers);
}

HttpResponse HttpsClient::post(const std::string& path, const std::string& key,
                               const boost::json::value& body, Headers headers) {
  return post(path, key, boost::json::serialize(body), std::move(headers));
}

HttpResponse HttpsClient::get(const std::string& path, const std::string& key) {
  return request("GET", path, "", {{"Authorization", "Bearer " + key}});
}

std::string raw_tls_exchange(int port, const std::string& bytes, int timeout_ms) {
  Poco::Net::SecureStreamSocket socket(
      Poco::Net::SocketAddress("127.0.0.1", static_cast<Poco::UInt16>(port)), client_context());
  socket.setReceiveTimeout(Poco::Timespan(0, timeout_ms * 1000));
  std::string received;
  try {
    socket.sendBytes(bytes.data(), static_cast<int>(bytes.size()));
  } catch (const Poco::Exception&) {
    // The server answered and closed before taking everything: read what it said.
  }
  char buffer[4096];
  try {
    while (true) {
      const int n = socket.receiveBytes(buffer, sizeof buffer);
      if (n <= 0) break;
      received.append(buffer, static_cast<std::size_t>(n));
    }
  } catch (const Poco::Exception&) {
    // timeout or reset: return what arrived
  }
  return received;
}

}  // namespace eventsvc::testing
