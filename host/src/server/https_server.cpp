#include "server/https_server.hpp"

#include <Poco/Net/Context.h>
#include <Poco/Net/HTTPRequestHandler.h>
#include <Poco/Net/HTTPRequestHandlerFactory.h>
#include <Poco/Net/HTTPServerParams.h>
#include <Poco/Net/NetException.h>
#include <Poco/Net/SSLManager.h>
#include <Poco/Net/SecureServerSocket.h>
#include <Poco/Net/ServerSocket.h>

#include <chrono>
#include <thread>

#include "eventsvc/sdk/error.hpp"

namespace eventsvc::host {

namespace {

class PipelineHandler final : public Poco::Net::HTTPRequestHandler {
 public:
  explicit PipelineHandler(RequestPipeline& pipeline) : pipeline_(pipeline) {}
  void handleRequest(Poco::Net::HTTPServerRequest& request,
                     Poco::Net::HTTPServerResponse& response) override {
    pipeline_.handle(request, response);
  }

 private:
  RequestPipeline& pipeline_;
};

class PipelineHandlerFactory final : public Poco::Net::HTTPRequestHandlerFactory {
 public:
  explicit PipelineHandlerFactory(RequestPipeline& pipeline) : pipeline_(pipeline) {}
  Poco::Net::HTTPRequestHandler* createRequestHandler(
      const Poco::Net::HTTPServerRequest&) override {
    return new PipelineHandler(pipeline_);
  }

 private:
  RequestPipeline& pipeline_;
};

Poco::Net::HTTPServerParams::Ptr server_params(const ServerConfig& server) {
  Poco::Net::HTTPServerParams::Ptr params = new Poco::Net::HTTPServerParams;
  params->setMaxThreads(server.threads);
  params->setMaxQueued(server.queue);
  params->setKeepAlive(true);
  params->setKeepAliveTimeout(Poco::Timespan(server.keep_alive_timeout_s, 0));
  params->setMaxKeepAliveRequests(server.max_keep_alive_requests);
  params->setTimeout(Poco::Timespan(server.read_timeout_s, 0));
  params->setServerName("eventsvc");
  params->setSoftwareVersion("eventsvc");
  return params;
}

Poco::Net::SocketAddress socket_address(const ListenAddress& address) {
  try {
    return Poco::Net::SocketAddress(address.host, address.port);
  } catch (const Poco::Exception& error) {
    throw sdk::Error(
        500, "cannot resolve listen address " + address.to_string() + ": " + error.displayText());
  }
}

}  // namespace

HttpsServer::HttpsServer(const HostConfig& config, RequestPipeline& pipeline)
    : config_(config),
      pipeline_(pipeline),
      pool_("http", 2, config.server.threads * (config.server.http_listen ? 2 : 1) + 2, 60) {}

HttpsServer::~HttpsServer() {
  // The serve command stops the server itself and exits at once when a worker stays blocked;
  // here, on the way out of a failed start, no client has been served.
  stop(0);
}

void HttpsServer::start() {
  Poco::Net::Context::Params tls;
  tls.certificateFile = config_.server.tls.certificate.string();
  tls.privateKeyFile = config_.server.tls.private_key.string();
  tls.verificationMode = Poco::Net::Context::VERIFY_NONE;
  tls.loadDefaultCAs = false;
  tls.cipherList = "ECDHE+AESGCM:ECDHE+CHACHA20:!aNULL:!eNULL:!MD5:!RC4";
  Poco::Net::Context::Ptr context;
  try {
    context = new Poco::Net::Context(Poco::Net::Context::TLS_SERVER_USE, tls);
    context->requireMinimumProtocol(Poco::Net::Context::PROTO_TLSV1_2);
    context->preferServerCiphers();
    context->enableSessionCache(true, "eventsvc");
  } catch (const Poco::Exception& error) {
    throw sdk::Error(500, "server.tls: cannot use " + tls.certificateFile + " / " +
                              tls.privateKeyFile + ": " + error.displayText());
  }
  try {
    Poco::Net::SecureServerSocket socket(socket_address(config_.server.listen), 256, context);
    https_ = std::make_unique<Poco::Net::HTTPServer>(new PipelineHandlerFactory(pipeline_), pool_,
                                                     socket, server_params(config_.server));
    if (config_.server.http_listen) {
      Poco::Net::ServerSocket plain(socket_address(*config_.server.http_listen), 256);
      http_ = std::make_unique<Poco::Net::HTTPServer>(new PipelineHandlerFactory(pipeline_), pool_,
                                                      plain, server_params(config_.server));
    }
  } catch (const Poco::Exception& error) {
    throw sdk::Error(500, "cannot listen: " + error.displayText());
  }
  pipeline_.watch(https_.get());
  https_->start();
  if (http_) {
    pipeline_.watch(http_.get());
    http_->start();
  }
}

bool HttpsServer::stop(int grace_seconds) {
  if (!https_) return true;
  // Stop accepting. (Not stopAll(false): it takes each connection's lock, which a connection holds
  // while it reads a request head, so one client sending its head slowly would hold the process.)
  https_->stop();
  if (http_) http_->stop();
  pipeline_.refuse_new();
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(grace_seconds);
  while (pipeline_.in_flight() > 0 && std::chrono::steady_clock::now() < deadline) {
    std::this_thread::sleep_for(std::chrono::milliseconds(10));
  }
  // Idle keep-alive connections, heads still arriving and requests past the grace are cut off.
  https_->stopAll(true);
  if (http_) http_->stopAll(true);
  const auto joined = std::chrono::steady_clock::now() + std::chrono::seconds(1);
  while (pool_.used() > 0 && std::chrono::steady_clock::now() < joined) {
    std::this_thread::sleep_for(std::chrono::milliseconds(10));
  }
  if (pool_.used() > 0) return false;
  pool_.joinAll();
  http_.reset();
  https_.reset();
  return true;
}

std::uint16_t HttpsServer::https_port() const {
  return https_->port();
}

std::optional<std::uint16_t> HttpsServer::http_port() const {
  if (!http_) return std::nullopt;
  return http_->port();
}

}  // namespace eventsvc::host
