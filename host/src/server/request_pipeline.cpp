#include "server/request_pipeline.hpp"

#include <algorithm>
#include <cctype>
#include <cmath>

#include "eventsvc/sdk/strings.hpp"
#include "eventsvc/toolkit/time.hpp"
#include "server/http_response.hpp"
#include "server/openapi_document.hpp"

namespace eventsvc::host {

namespace {

// Endpoints that take no body accept (and ignore) one up to this size.
constexpr std::size_t kIgnoredBodyBytes = std::size_t{64} * 1024;
// A tail that is closed frees its place at once; a client retrying sooner finds it taken.
constexpr int kTailRetryAfter = 5;

std::string tenant_key(const sdk::Tenant& tenant) {
  std::string key = tenant.workspace;
  key.push_back('\x1f');
  key += sdk::environment_name(tenant.environment);
  return key;
}

void add_rate_headers(HeaderList& headers, const sdk::RateDecision& decision) {
  headers.emplace_back("X-RateLimit-Limit", std::to_string(decision.limit));
  headers.emplace_back("X-RateLimit-Remaining", std::to_string(decision.remaining));
  headers.emplace_back("X-RateLimit-Reset", std::to_string(decision.reset));
}

// The bearer credential, or empty.
std::string bearer_credential(const RequestHead& head) {
  const std::string* header = head.header("Authorization");
  if (header == nullptr || header->size() < 7) return {};
  std::string scheme = header->substr(0, 6);
  for (auto& c : scheme)
    c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  if (scheme != "bearer" || (*header)[6] != ' ') return {};
  std::size_t begin = 7;
  while (begin < header->size() && (*header)[begin] == ' ')
    ++begin;
  std::size_t end = header->size();
  while (end > begin && ((*header)[end - 1] == ' ' || (*header)[end - 1] == '\t'))
    --end;
  return header->substr(begin, end - begin);
}

bool takes_body(const std::string& method) {
  return method == "POST" || method == "PUT" || method == "PATCH";
}

}  // namespace

RequestPipeline::RequestPipeline(const HostConfig& config, ModuleRegistry& modules, LogSink& log,
                                 Router router, HostMetrics& metrics, FileSite files)
    : config_(config),
      modules_(modules),
      log_(log),
      router_(std::move(router)),
      metrics_(metrics),
      files_(std::move(files)) {}

template <class Step>
void RequestPipeline::answering_errors(Exchange& exchange, Step step) {
  try {
    step();
  } catch (const sdk::Error& error) {
    answer_error(exchange, error);
  } catch (const std::exception& error) {
    log_.log(sdk::LogLevel::error, "http",
             std::string(exchange.head.path()) + ": unhandled exception: " + error.what());
    answer_error(exchange, sdk::Error::internal("internal error"));
  }
}

void RequestPipeline::admit(Exchange& exchange) {
  answering_errors(exchange, [&] {
    if (refusing_) {
      exchange.answer.keep_alive = false;
      metrics_.refused(Refusal::shutting_down);
      throw sdk::Error::unavailable("the server is shutting down", 1);
    }
    if (answer_openapi_document(exchange)) return;
    if (answer_file(exchange)) return;
    route_and_authorise(exchange);
    check_body_framing(exchange);
  });
}

bool RequestPipeline::answer_openapi_document(Exchange& exchange) {
  const RequestHead& head = exchange.head;
  if (head.path() != kOpenApiPath) return false;
  // Keyless, like an unknown route: charged to the address's anonymous allowance.
  charge_anonymous(head.client_address, exchange.answer.headers);
  if (head.method != "GET" && head.method != "HEAD") {
    throw method_not_allowed(head.method, kOpenApiPath, {"GET", "HEAD"}, exchange.answer.headers);
  }
  exchange.answer.status = 200;
  exchange.answer.body = std::string(openapi_document());
  exchange.answer.headers.emplace_back("Content-Type", "application/yaml");
  exchange.answered = true;
  return true;
}

bool RequestPipeline::answer_file(Exchange& exchange) {
  if (!files_) return false;
  std::optional<Answer> file = files_(exchange.head);
  if (!file) return false;
  // Keyless, and not charged to the address's anonymous allowance: files are answered from memory
  // without reaching a module, and behind a TCP load balancer every browser shares its address.
  exchange.answer.status = file->status;
  exchange.answer.body = std::move(file->body);
  for (auto& header : file->headers)
    exchange.answer.headers.push_back(std::move(header));
  exchange.answered = true;
  return true;
}

void RequestPipeline::complete(Exchange& exchange, std::string_view body) {
  answering_errors(exchange, [&] {
    const ApiRequest request{*exchange.principal, *exchange.plan,       exchange.head, body,
                             exchange.params,     toolkit::now_millis()};
    ApiResponse response = exchange.endpoint->handle(request);
    exchange.answer.status = response.status;
    exchange.answer.body = std::move(response.body);
    for (auto& header : response.headers)
      exchange.answer.headers.push_back(std::move(header));
    exchange.answer.hold = response.hold;
    exchange.answered = true;
    if (response.stream) {
      // A streamed answer runs until its last chunk is written: its lease goes with it.
      exchange.answer.stream = std::move(response.stream);
      exchange.answer.held = std::make_shared<HeldLease>(std::move(exchange.lease));
    }
    exchange.lease.reset();
  });
}

void RequestPipeline::fail(Exchange& exchange, const sdk::Error& error) {
  exchange.answer.keep_alive = false;
  answer_error(exchange, error);
}

void RequestPipeline::answer_error(Exchange& exchange, const sdk::Error& error) {
  answer_with(exchange.answer, error);
  exchange.answered = true;
  exchange.lease.reset();
  // A 503 is a backing service that is down for now (disk full, storage failing): the operator
  // needs to know too. Other 5xx are defects.
  const std::string path(exchange.head.path());
  if (error.status() == 503 && !refusing_) {
    log_.log(sdk::LogLevel::warning, "http", path + ": " + error.message());
  } else if (error.status() >= 500 && error.status() != 503) {
    log_.log(sdk::LogLevel::error, "http", path + ": " + error.message());
  }
}

void RequestPipeline::finish(const Exchange& exchange) {
  const double seconds =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - exchange.started).count();
  metrics_.request(exchange.operation, exchange.answer.status, seconds);
  if (!config_.server.access_log) return;
  const double ms = seconds * 1000;
  const std::string_view path = exchange.head.path();
  sdk::json::object line{{"level", "info"},
                         {"module", "access"},
                         {"method", exchange.head.method},
                         {"path", path.substr(0, 200)},
                         {"status", exchange.answer.status},
                         {"ms", std::round(ms * 1000) / 1000}};
  if (exchange.principal) {
    line["workspace"] = exchange.principal->tenant.workspace;
    line["env"] = sdk::environment_name(exchange.principal->tenant.environment);
  }
  if (exchange.operation) line["op"] = operation_name(*exchange.operation);
  log_.write(std::move(line));
}

Answer RequestPipeline::transport_error(const std::string& client_address,
                                        const sdk::Error& error) {
  Answer answer;
  answer.keep_alive = false;
  try {
    charge_anonymous(client_address, answer.headers);
    answer_with(answer, error);
  } catch (const sdk::Error& limited) {
    answer_with(answer, limited);
  }
  metrics_.request(std::nullopt, answer.status, std::nullopt);
  return answer;
}

void RequestPipeline::charge_anonymous(const std::string& client_address, HeaderList& headers) {
  const sdk::RateDecision decision = modules_.limits().call([&](sdk::Limits& limits) {
    return limits.charge("anonymous\x1f" + client_address, config_.anonymous_per_minute);
  });
  add_rate_headers(headers, decision);
  if (!decision.allowed) {
    metrics_.refused(Refusal::anonymous_rate_limit);
    throw sdk::Error::too_many_requests(
        "too many unauthenticated or unroutable requests from this address", decision.retry_after,
        {{"retry_after", decision.retry_after}, {"limit", decision.limit}});
  }
}

void RequestPipeline::route_and_authorise(Exchange& exchange) {
  route(exchange);
  authenticate(exchange);
  const std::string tenant = tenant_key(exchange.principal->tenant);
  const sdk::RateDecision decision = charge_rate(exchange, tenant);
  check_scope(exchange);
  // After the scope: a key that may not call the endpoint learns that, not its rate.
  if (!decision.allowed) refuse_over_rate(exchange, decision);
  if (exchange.endpoint->leased()) take_lease(exchange, tenant);
}

void RequestPipeline::route(Exchange& exchange) {
  const RequestHead& head = exchange.head;
  const std::string path(head.path());
  Router::Match match = router_.match(head.method, path);
  if (match.endpoint == nullptr) {
    charge_anonymous(head.client_address, exchange.answer.headers);
    if (!match.allowed_methods.empty()) {
      throw method_not_allowed(head.method, path, match.allowed_methods, exchange.answer.headers);
    }
    throw sdk::Error::not_found("no such endpoint: " + head.method + " " + path);
  }
  exchange.endpoint = match.endpoint;
  exchange.params = std::move(match.params);
  exchange.operation = match.endpoint->operation();
}

void RequestPipeline::authenticate(Exchange& exchange) {
  const RequestHead& head = exchange.head;
  // Which of two credentials would count is a guess no server should make.
  if (const auto credentials = head.header_count("Authorization"); credentials > 1) {
    charge_anonymous(head.client_address, exchange.answer.headers);
    throw sdk::Error::unauthorized("send one Authorization header, not " +
                                   std::to_string(credentials));
  }
  const std::string credential = bearer_credential(head);
  std::optional<sdk::Principal> principal;
  if (!credential.empty()) {
    principal = modules_.auth().call(
        [&](sdk::AuthProvider& auth) { return auth.authenticate(credential); });
  }
  if (!principal) {
    charge_anonymous(head.client_address, exchange.answer.headers);
    throw sdk::Error::unauthorized(credential.empty()
                                       ? "missing API key: send Authorization: Bearer <API key>"
                                       : "invalid API key");
  }
  exchange.principal = std::move(principal);
  exchange.plan = config_.plan(exchange.principal->plan);
  if (exchange.plan == nullptr) {
    throw sdk::Error::internal("the plan '" + exchange.principal->plan +
                               "' of this key is not configured on the server");
  }
}

sdk::RateDecision RequestPipeline::charge_rate(Exchange& exchange, const std::string& tenant) {
  const Operation operation = *exchange.operation;
  const sdk::RateDecision decision = modules_.limits().call([&](sdk::Limits& limits) {
    return limits.charge(tenant + "\x1f" + std::string(operation_name(operation)),
                         exchange.plan->rate_limit(operation));
  });
  add_rate_headers(exchange.answer.headers, decision);
  return decision;
}

void RequestPipeline::check_scope(const Exchange& exchange) const {
  const auto scopes = exchange.endpoint->scopes();
  const bool permitted = std::any_of(scopes.begin(), scopes.end(), [&](std::string_view scope) {
    return exchange.principal->has_scope(scope);
  });
  if (permitted) return;
  sdk::json::array needed_list;
  for (const auto scope : scopes)
    needed_list.emplace_back(scope);
  throw sdk::Error::forbidden("this key lacks the scope " + sdk::join(scopes, " or "),
                              {{"required_scopes", std::move(needed_list)}});
}

void RequestPipeline::refuse_over_rate(const Exchange& exchange,
                                       const sdk::RateDecision& decision) {
  const Operation operation = *exchange.operation;
  metrics_.refused(Refusal::rate_limit);
  throw sdk::Error::too_many_requests("rate limit of " + std::to_string(decision.limit) + " " +
                                          std::string(operation_name(operation)) +
                                          " requests per minute exceeded",
                                      decision.retry_after,
                                      {{"retry_after", decision.retry_after},
                                       {"limit", decision.limit},
                                       {"operation", operation_name(operation)}});
}

void RequestPipeline::take_lease(Exchange& exchange, const std::string& tenant) {
  const Plan& plan = *exchange.plan;
  HeaderList& headers = exchange.answer.headers;
  if (exchange.endpoint->leases_a_tail()) {
    // Per key: one client's tails do not take another's.
    auto lease = modules_.limits().call([&](sdk::Limits& limits) {
      return limits.acquire(tenant + "/tails/" + exchange.principal->key_id, plan.tails);
    });
    if (!lease) {
      metrics_.refused(Refusal::concurrency);
      throw sdk::Error::too_many_requests(
          "this key has " + std::to_string(plan.tails) +
              " live tails open, as many as its plan allows: close one first",
          kTailRetryAfter, {{"retry_after", kTailRetryAfter}, {"tails_limit", plan.tails}});
    }
    exchange.lease = HeldLease(*modules_.limits().plugin, std::move(*lease));
    return;
  }
  const bool reports = exchange.endpoint->reports_concurrency();
  auto lease = modules_.limits().call(
      [&](sdk::Limits& limits) { return limits.acquire(tenant, plan.concurrency); });
  if (!lease) {
    metrics_.refused(Refusal::concurrency);
    if (reports) headers.emplace_back("X-Concurrency-Limit", std::to_string(plan.concurrency));
    throw sdk::Error::too_many_requests(
        "concurrency limit of " + std::to_string(plan.concurrency) +
            " requests in progress for this workspace and environment reached",
        1, {{"retry_after", 1}, {"concurrency_limit", plan.concurrency}});
  }
  if (reports) {
    headers.emplace_back("X-Concurrency-Limit", std::to_string(plan.concurrency));
    headers.emplace_back("X-Concurrency-Active", std::to_string(lease->active));
  }
  exchange.lease = HeldLease(*modules_.limits().plugin, std::move(*lease));
}

void RequestPipeline::check_body_framing(Exchange& exchange) const {
  const RequestHead& head = exchange.head;
  if (!head.has_body_framing() && takes_body(head.method)) {
    exchange.answer.keep_alive = false;
    throw sdk::Error(411, "send the body with a Content-Length header or chunked encoding");
  }
  const std::size_t limit = exchange.endpoint->max_body_bytes() == 0
                                ? kIgnoredBodyBytes
                                : exchange.endpoint->max_body_bytes();
  // Answered from the declared length: waiting for bytes the answer does not need would hold
  // the connection for as long as the client cares to send them.
  if (head.content_length && *head.content_length > limit) {
    exchange.answer.keep_alive = false;
    throw body_too_large(limit);
  }
  exchange.body_limit = limit;
}

}  // namespace eventsvc::host
