// One API endpoint: what it needs from the pipeline (operation, scopes, lease, body limit) and the
// handler that turns an authorised request into a response.
#pragma once

#include <chrono>
#include <cstddef>
#include <memory>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "config/host_config.hpp"
#include "eventsvc/sdk/principal.hpp"
#include "eventsvc/sdk/time.hpp"
#include "limits/operation.hpp"
#include "server/http_message.hpp"

namespace eventsvc::host {

struct ApiRequest {
  const sdk::Principal& principal;
  const Plan& plan;
  const RequestHead& http;
  std::string_view body;
  std::vector<std::string> path_params;
  sdk::Millis now = 0;
};

struct ApiResponse {
  int status = 200;
  std::string body;  // JSON
  HeaderList headers;
  std::shared_ptr<BodyStream> stream;  // set: the body is streamed (its Content-Type in headers)
  std::chrono::milliseconds hold{0};   // sent this long after it is ready (sdk::AcceptResult)
};

class Endpoint {
 public:
  virtual ~Endpoint() = default;

  virtual Operation operation() const = 0;
  // The principal needs any one of these scopes.
  virtual std::vector<std::string_view> scopes() const = 0;
  // Holds a concurrency lease while it runs.
  virtual bool leased() const = 0;
  // Its lease is one of the key's live tails (the plan's `tails`), not of the plan's concurrency.
  virtual bool leases_a_tail() const { return false; }
  // Reports X-Concurrency-Limit / X-Concurrency-Active.
  virtual bool reports_concurrency() const = 0;
  // Largest body accepted; 0 for endpoints that take none.
  virtual std::size_t max_body_bytes() const = 0;

  virtual ApiResponse handle(const ApiRequest& request) = 0;
};

}  // namespace eventsvc::host
