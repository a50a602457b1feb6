// The path every request takes (DESIGN §1, §7): route -> auth -> scope -> rate limit ->
// concurrency lease -> body -> endpoint. Each step that fails answers with the error body of
// API-SPEC 2.10; every answer carries the rate-limit headers of the bucket it was charged to.
//
// The connection layer drives it in two steps, reading the body in between
// on its own: admit() decides from the head alone (and may answer at once), complete() runs the
// endpoint once the body is in. No step touches a socket.
#pragma once

#include <atomic>
#include <chrono>
#include <functional>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "config/host_config.hpp"
#include "eventsvc/sdk/error.hpp"
#include "limits/held_lease.hpp"
#include "limits/operation.hpp"
#include "logging/log_sink.hpp"
#include "metrics/host_metrics.hpp"
#include "modules/module_registry.hpp"
#include "server/http_message.hpp"
#include "server/router.hpp"

namespace eventsvc::host {

// One request on its way through the pipeline.
struct Exchange {
  explicit Exchange(RequestHead request_head)
      : head(std::move(request_head)), started(std::chrono::steady_clock::now()) {}

  RequestHead head;
  std::chrono::steady_clock::time_point started;
  // Set once `answered`: what to write. Until then, the body is wanted, up to `body_limit` bytes.
  Answer answer;
  bool answered = false;
  std::size_t body_limit = 0;

  // The pipeline's own state between the steps.
  Endpoint* endpoint = nullptr;
  std::vector<std::string> params;
  std::optional<sdk::Principal> principal;
  const Plan* plan = nullptr;
  HeldLease lease;
  std::optional<Operation> operation;
};

// Files served before any route, without a key or a charge (the browser console): the answer for
// a request they own, nullopt for the rest.
using FileSite = std::function<std::optional<Answer>(const RequestHead& head)>;

class RequestPipeline {
 public:
  RequestPipeline(const HostConfig& config, ModuleRegistry& modules, LogSink& log, Router router,
                  HostMetrics& metrics, FileSite files = {});

  // Everything that can be decided before the body: route, credentials, scope, rate limit,
  // lease, body framing (411) and declared size (413, with keep_alive false).
  void admit(Exchange& exchange);
  // The body arrived: runs the endpoint.
  void complete(Exchange& exchange, std::string_view body);
  // The body could not be read (too large as it streamed, too slow, malformed): answers `error`
  // and closes the connection after it.
  void fail(Exchange& exchange, const sdk::Error& error);
  // The answer is decided: counted in the metrics, and the access log line (before the answer is
  // written, so a client that has read its answer finds the line).
  void finish(const Exchange& exchange);
  // A request the connection layer could not parse (malformed or oversized head) or refused
  // before it reached a route: the error body, charged to the client address's anonymous bucket.
  Answer transport_error(const std::string& client_address, const sdk::Error& error);

  // From now on every request is answered 503 (shutting down), with Connection: close, without
  // reaching a module: the server is stopping, and modules may already be stopped.
  void refuse_new() { refusing_ = true; }
  bool refusing() const { return refusing_; }

 private:
  // Runs `step`; an error it throws becomes the exchange's answer.
  template <class Step>
  void answering_errors(Exchange& exchange, Step step);
  // GET /openapi.yaml, answered from the head: true when it was that request.
  bool answer_openapi_document(Exchange& exchange);
  // A file of the file site: true when it was that request.
  bool answer_file(Exchange& exchange);
  // route -> authenticate -> charge the rate -> scope -> rate refusal -> lease, each throwing the
  // error that answers the request.
  void route_and_authorise(Exchange& exchange);
  void route(Exchange& exchange);
  void authenticate(Exchange& exchange);
  sdk::RateDecision charge_rate(Exchange& exchange, const std::string& tenant);
  void check_scope(const Exchange& exchange) const;
  [[noreturn]] void refuse_over_rate(const Exchange& exchange, const sdk::RateDecision& decision);
  void take_lease(Exchange& exchange, const std::string& tenant);
  void check_body_framing(Exchange& exchange) const;
  void answer_error(Exchange& exchange, const sdk::Error& error);
  void charge_anonymous(const std::string& client_address, HeaderList& headers);

  const HostConfig& config_;
  ModuleRegistry& modules_;
  LogSink& log_;
  Router router_;
  HostMetrics& metrics_;
  FileSite files_;
  std::atomic<bool> refusing_{false};
};

}  // namespace eventsvc::host
