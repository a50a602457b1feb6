#include "server/request_pipeline.hpp"

#include <chrono>

#include "eventsvc/sdk/error.hpp"
#include "eventsvc/sdk/strings.hpp"
#include "server/http_response.hpp"
#include "server/request_body.hpp"

namespace eventsvc::host {

namespace {

// Unread bodies up to this size are dropped so the connection stays usable; larger ones close it.
constexpr std::size_t kDiscardBudget = std::size_t{64} * 1024;

std::string tenant_key(const sdk::Tenant& tenant) {
  std::string key = tenant.workspace;
  key.push_back('\x1f');
  key += sdk::environment_name(tenant.environment);
  return key;
}

void add_rate_headers(HeaderList& headers, const RateDecision& decision) {
  headers.emplace_back("X-RateLimit-Limit", std::to_string(decision.limit));
  headers.emplace_back("X-RateLimit-Remaining", std::to_string(decision.remaining));
  headers.emplace_back("X-RateLimit-Reset", std::to_string(decision.reset));
}

// How many times the request carries the header `name` (compared without case).
std::size_t header_count(const Poco::Net::HTTPServerRequest& request, const std::string& name) {
  std::size_t count = 0;
  for (const auto& [header, value] : request) {
    if (Poco::icompare(header, name) == 0) ++count;
  }
  return count;
}

// The bearer credential, or empty.
std::string bearer_credential(const Poco::Net::HTTPServerRequest& request) {
  const std::string header =
      request.get("Authorization", "");  // a copy: get() may return its default argument
  if (header.size() < 7) return {};
  std::string scheme = header.substr(0, 6);
  for (auto& c : scheme)
    c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  if (scheme != "bearer" || header[6] != ' ') return {};
  std::size_t begin = 7;
  while (begin < header.size() && header[begin] == ' ')
    ++begin;
  std::size_t end = header.size();
  while (end > begin && (header[end - 1] == ' ' || header[end - 1] == '\t'))
    --end;
  return header.substr(begin, end - begin);
}

std::string path_of(const std::string& uri) {
  const std::size_t query = uri.find('?');
  return query == std::string::npos ? uri : uri.substr(0, query);
}

}  // namespace

struct RequestPipeline::Exchange {
  int status = 200;
  std::string body;
  HeaderList headers;
  bool keep_alive = true;
  bool body_read = false;  // the request body was consumed (or there was none to read)
  std::optional<sdk::Tenant> tenant;
  std::optional<Operation> operation;

  void fail(const sdk::Error& error) {
    status = error.status();
    body = error_body(error);
    if (error.retry_after())
      headers.emplace_back("Retry-After", std::to_string(*error.retry_after()));
  }
};

RequestPipeline::RequestPipeline(const HostConfig& config, ModuleRegistry& modules, LogSink& log,
                                 Router router)
    : config_(config), modules_(modules), log_(log), router_(std::move(router)) {}

void RequestPipeline::watch(const Poco::Net::TCPServer* server) {
  for (auto& slot : servers_) {
    const Poco::Net::TCPServer* empty = nullptr;
    if (slot.compare_exchange_strong(empty, server)) return;
  }
}

bool RequestPipeline::under_pressure() const {
  for (const auto& slot : servers_) {
    const auto* server = slot.load();
    if (server != nullptr && server->queuedConnections() > 0) return true;
  }
  return false;
}

void RequestPipeline::handle(Poco::Net::HTTPServerRequest& request,
                             Poco::Net::HTTPServerResponse& response) {
  const auto started = std::chrono::steady_clock::now();
  ++in_flight_;
  Exchange exchange;
  const std::string path = path_of(request.getURI());
  const bool refused = refusing_;
  try {
    if (refused) throw sdk::Error::unavailable("the server is shutting down", 1);
    run(request, path, exchange);
  } catch (const sdk::Error& error) {
    exchange.fail(error);
    // A 503 is a backing service that is down for now (disk full, storage failing): the operator
    // needs to know too. Other 5xx are defects.
    if (error.status() == 503 && !refused) {
      log_.log(sdk::LogLevel::warning, "http", path + ": " + error.message());
    } else if (error.status() >= 500 && error.status() != 503) {
      log_.log(sdk::LogLevel::error, "http", path + ": " + error.message());
    }
  } catch (const std::exception& error) {
    log_.log(sdk::LogLevel::error, "http", path + ": unhandled exception: " + error.what());
    exchange.fail(sdk::Error::internal("internal error"));
  }
  // An answer given before the body was read leaves the body on the connection: drop it when it
  // is small, else close after answering.
  if (refused || (!exchange.body_read && !discard_body(request, kDiscardBudget))) {
    exchange.keep_alive = false;
  }
  // A worker thread serves one connection at a time: when connections are queued, close this one
  // after answering so a waiting client gets the thread.
  if (!exchange.keep_alive || under_pressure()) response.setKeepAlive(false);
  send_json(response, exchange.status, exchange.body, exchange.headers);

  if (config_.server.access_log) {
    const double ms =
        std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - started)
            .count();
    sdk::json::object line{{"level", "info"},
                           {"module", "access"},
                           {"method", request.getMethod()},
                           {"path", path.size() > 200 ? path.substr(0, 200) : path},
                           {"status", exchange.status},
                           {"ms", std::round(ms * 1000) / 1000}};
    if (exchange.tenant) {
      line["workspace"] = exchange.tenant->workspace;
      line["env"] = sdk::environment_name(exchange.tenant->environment);
    }
    if (exchange.operation) line["op"] = operation_name(*exchange.operation);
    log_.write(std::move(line));
  }
  --in_flight_;
}

void RequestPipeline::charge_anonymous(const Poco::Net::HTTPServerRequest& request,
                                       Exchange& exchange) {
  const std::string key = "anonymous\x1f" + request.clientAddress().host().toString();
  const RateDecision decision = rate_limiter_.charge(key, config_.anonymous_per_minute);
  add_rate_headers(exchange.headers, decision);
  if (!decision.allowed) {
    throw sdk::Error::too_many_requests(
        "too many unauthenticated or unroutable requests from this address", decision.retry_after,
        {{"retry_after", decision.retry_after}, {"limit", decision.limit}});
  }
}

void RequestPipeline::run(Poco::Net::HTTPServerRequest& request, const std::string& path,
                          Exchange& exchange) {
  const Router::Match match = router_.match(request.getMethod(), path);
  if (match.endpoint == nullptr) {
    charge_anonymous(request, exchange);
    if (!match.allowed_methods.empty()) {
      const std::string allow = sdk::join(match.allowed_methods, ", ");
      exchange.headers.emplace_back("Allow", allow);
      throw sdk::Error(
          405, "method " + request.getMethod() + " is not allowed on " + path + "; use " + allow,
          {{"allowed_methods", allow}});
    }
    throw sdk::Error::not_found("no such endpoint: " + request.getMethod() + " " + path);
  }
  Endpoint& endpoint = *match.endpoint;
  exchange.operation = endpoint.operation();

  // Which of two credentials would count is a guess no server should make.
  if (const auto credentials = header_count(request, "Authorization"); credentials > 1) {
    charge_anonymous(request, exchange);
    throw sdk::Error::unauthorized("send one Authorization header, not " +
                                   std::to_string(credentials));
  }
  const std::string credential = bearer_credential(request);
  std::optional<sdk::Principal> principal;
  if (!credential.empty()) {
    principal = modules_.auth().call(
        [&](sdk::AuthProvider& auth) { return auth.authenticate(credential); });
  }
  if (!principal) {
    charge_anonymous(request, exchange);
    throw sdk::Error::unauthorized(credential.empty()
                                       ? "missing API key: send Authorization: Bearer <API key>"
                                       : "invalid API key");
  }
  exchange.tenant = principal->tenant;
  const Plan* plan = config_.plan(principal->plan);
  if (plan == nullptr) {
    throw sdk::Error::internal("the plan '" + principal->plan +
                               "' of this key is not configured on the server");
  }

  const Operation operation = endpoint.operation();
  const std::string tenant = tenant_key(principal->tenant);
  const RateDecision decision = rate_limiter_.charge(
      tenant + "\x1f" + std::string(operation_name(operation)), plan->rate_limit(operation));
  add_rate_headers(exchange.headers, decision);

  const auto scopes = endpoint.scopes();
  const bool permitted = std::any_of(scopes.begin(), scopes.end(), [&](std::string_view scope) {
    return principal->has_scope(scope);
  });
  if (!permitted) {
    sdk::json::array needed_list;
    for (const auto scope : scopes)
      needed_list.emplace_back(scope);
    throw sdk::Error::forbidden("this key lacks the scope " + sdk::join(scopes, " or "),
                                {{"required_scopes", std::move(needed_list)}});
  }
  if (!decision.allowed) {
    throw sdk::Error::too_many_requests("rate limit of " + std::to_string(decision.limit) + " " +
                                            std::string(operation_name(operation)) +
                                            " requests per minute exceeded",
                                        decision.retry_after,
                                        {{"retry_after", decision.retry_after},
                                         {"limit", decision.limit},
                                         {"operation", operation_name(operation)}});
  }

  std::optional<ConcurrencyLimiter::Lease> lease;
  if (endpoint.leased()) {
    lease = leases_.acquire(tenant, plan->concurrency);
    if (!lease) {
      if (endpoint.reports_concurrency()) {
        exchange.headers.emplace_back("X-Concurrency-Limit", std::to_string(plan->concurrency));
      }
      throw sdk::Error::too_many_requests(
          "concurrency limit of " + std::to_string(plan->concurrency) +
              " requests in progress for this workspace and environment reached",
          1, {{"retry_after", 1}, {"concurrency_limit", plan->concurrency}});
    }
    if (endpoint.reports_concurrency()) {
      exchange.headers.emplace_back("X-Concurrency-Limit", std::to_string(plan->concurrency));
      exchange.headers.emplace_back("X-Concurrency-Active", std::to_string(lease->active()));
    }
  }

  bool reusable = true;
  std::string body;
  exchange.body_read = true;
  try {
    body = read_body(request,
                     endpoint.max_body_bytes() == 0 ? kDiscardBudget : endpoint.max_body_bytes(),
                     reusable);
  } catch (...) {
    exchange.keep_alive = reusable;
    throw;
  }
  exchange.keep_alive = reusable;

  const ApiRequest api_request{*principal, *plan, request, body, match.params, sdk::now_millis()};
  ApiResponse response = endpoint.handle(api_request);
  exchange.status = response.status;
  exchange.body = std::move(response.body);
  for (auto& header : response.headers)
    exchange.headers.push_back(std::move(header));
}

}  // namespace eventsvc::host
