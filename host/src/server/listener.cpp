#include "server/listener.hpp"

#include <boost/asio/io_context.hpp>
#include <string>

#include "eventsvc/sdk/error.hpp"

namespace eventsvc::host {

namespace asio = boost::asio;
using asio::ip::tcp;

namespace {

tcp::endpoint resolve(const ListenAddress& address) {
  try {
    asio::io_context io;
    tcp::resolver resolver(io);
    const auto results = resolver.resolve(address.host, std::to_string(address.port),
                                          tcp::resolver::passive | tcp::resolver::numeric_service);
    if (results.empty()) throw sdk::Error(500, "no address");
    return *results.begin();
  } catch (const boost::system::system_error& error) {
    throw sdk::Error(500, "cannot resolve listen address " + address.to_string() + ": " +
                              error.code().message());
  }
}

}  // namespace

tcp::acceptor open_listener(const asio::any_io_executor& executor, const ListenAddress& address) {
  const tcp::endpoint endpoint = resolve(address);
  try {
    tcp::acceptor acceptor(executor, endpoint.protocol());
    acceptor.set_option(tcp::acceptor::reuse_address(true));
    acceptor.bind(endpoint);
    acceptor.listen(asio::socket_base::max_listen_connections);
    return acceptor;
  } catch (const boost::system::system_error& error) {
    throw sdk::Error(500,
                     "cannot listen on " + address.to_string() + ": " + error.code().message());
  }
}

}  // namespace eventsvc::host
