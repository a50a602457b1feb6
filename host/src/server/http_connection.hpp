// One client connection, from accept to close, as a coroutine on its own strand of the server's
// I/O threads. Every stage that waits for the client has a deadline for the whole stage, not per
// read: the TLS handshake, the wait for a request to start (keep-alive), the request head, the body
// (longer for a longer declared body) and the answer. Only a request whose head has arrived
// occupies an endpoint thread, briefly to admit it and, once its body has arrived, to run its
// endpoint: a connection waiting for its client holds none, so slow or idle clients cost a socket,
// not a thread.
#pragma once

#include <boost/asio/awaitable.hpp>
#include <boost/beast/core/tcp_stream.hpp>
#include <boost/beast/ssl/ssl_stream.hpp>
#include <string>

#include "server/connection_host.hpp"

namespace eventsvc::host {

using PlainStream = boost::beast::tcp_stream;
using TlsStream = boost::beast::ssl_stream<boost::beast::tcp_stream>;

// Serves `stream` (accepted, admitted to the table as `id`) until it closes.
template <class Stream>
boost::asio::awaitable<void> serve_connection(ConnectionHost& host, Stream stream,
                                              ConnectionTable::Id id, std::string address);

extern template boost::asio::awaitable<void> serve_connection<PlainStream>(ConnectionHost&,
                                                                           PlainStream,
                                                                           ConnectionTable::Id,
                                                                           std::string);
extern template boost::asio::awaitable<void> serve_connection<TlsStream>(ConnectionHost&, TlsStream,
                                                                         ConnectionTable::Id,
                                                                         std::string);

}  // namespace eventsvc::host
