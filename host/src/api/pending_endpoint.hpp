// An endpoint whose capability is not built yet: it runs the whole pipeline (auth, scopes, limits,
// leases, body limit) and then answers 503 with Retry-After.
#pragma once

#include "api/endpoint.hpp"

namespace eventsvc::host {

struct EndpointTraits {
  Operation operation;
  std::vector<std::string_view> scopes;
  bool leased;
  bool reports_concurrency;
  std::size_t max_body_bytes;
};

class PendingEndpoint final : public Endpoint {
 public:
  explicit PendingEndpoint(EndpointTraits traits) : traits_(std::move(traits)) {}

  Operation operation() const override { return traits_.operation; }
  std::vector<std::string_view> scopes() const override { return traits_.scopes; }
  bool leased() const override { return traits_.leased; }
  bool reports_concurrency() const override { return traits_.reports_concurrency; }
  std::size_t max_body_bytes() const override { return traits_.max_body_bytes; }
  ApiResponse handle(const ApiRequest& request) override;

 private:
  EndpointTraits traits_;
};

}  // namespace eventsvc::host
