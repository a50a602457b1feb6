// A plain HTTPS client for integration tests: real TLS to the server under test, keep-alive,
// exact access to status, headers and body.
#pragma once

#include <boost/json/value.hpp>
#include <map>
#include <memory>
#include <string>
#include <utility>
#include <vector>

namespace Poco::Net {
class HTTPClientSession;
}

namespace eventsvc::testing {

struct HttpResponse {
  int status = 0;
  std::map<std::string, std::string> headers;  // names lowercased
  std::string body;

  boost::json::value json() const;
  bool has_header(const std::string& name) const;
  std::string header(const std::string& name) const;  // "" when absent
};

using Headers = std::vector<std::pair<std::string, std::string>>;

class HttpsClient {
 public:
  // `tls` false: plain HTTP (the admin listener, the http_listen one).
  explicit HttpsClient(int port, bool tls = true);
  ~HttpsClient();

  HttpResponse request(const std::string& method, const std::string& path,
                       const std::string& body = "", const Headers& headers = {});

  // JSON requests with a bearer key.
  HttpResponse post(const std::string& path, const std::string& key, const std::string& body,
                    Headers headers = {});
  HttpResponse post(const std::string& path, const std::string& key, const boost::json::value& body,
                    Headers headers = {});
  HttpResponse get(const std::string& path, const std::string& key);

 private:
  std::unique_ptr<Poco::Net::HTTPClientSession> session_;
};

// Sends raw bytes over one TLS connection and reads until the server closes or `timeout_ms`.
std::string raw_tls_exchange(int port, const std::string& bytes, int timeout_ms = 5000);

}  // namespace eventsvc::testing
