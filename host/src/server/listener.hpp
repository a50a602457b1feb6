// A listening socket on a configured address, for the API and admin servers alike.
#pragma once

#include <boost/asio/any_io_executor.hpp>
#include <boost/asio/ip/tcp.hpp>

#include "config/host_config.hpp"

namespace eventsvc::host {

// Resolves `address` (a name or a numeric host), binds and listens, on `executor`. Throws
// sdk::Error(500) "cannot listen on host:port: reason".
boost::asio::ip::tcp::acceptor open_listener(const boost::asio::any_io_executor& executor,
                                             const ListenAddress& address);

}  // namespace eventsvc::host
