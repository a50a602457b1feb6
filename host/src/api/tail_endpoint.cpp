#include "api/tail_endpoint.hpp"

#include "tail/tail_request.hpp"
#include "tail/tail_stream.hpp"

namespace eventsvc::host {

ApiResponse TailEndpoint::handle(const ApiRequest& request) {
  TailRequest parsed = parse_tail_request(request.http, request.plan, request.now);
  // The cursor a `lagged` event hands out: an export of this filter's body, of the span skipped.
  PageCursor missed;
  missed.read = "exports";
  missed.tenant = tenant_digest(request.principal.tenant);
  missed.request = request_digest(parsed.body);
  missed.now = request.now;
  missed.expires_at = request.now + config_.cursors.lifetime;
  auto stream =
      std::make_shared<TailStream>(storage_, hub_, request.principal.tenant, std::move(parsed),
                                   config_.tail, std::move(missed), seal_);
  ApiResponse response;
  response.headers.emplace_back("Content-Type", "text/event-stream");
  response.headers.emplace_back("Cache-Control", "no-store");
  // Proxies that buffer answers would hold the events back.
  response.headers.emplace_back("X-Accel-Buffering", "no");
  response.stream = std::move(stream);
  return response;
}

}  // namespace eventsvc::host
