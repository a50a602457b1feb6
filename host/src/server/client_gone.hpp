// Whether a read or write failed because the client went away (closed, reset, cut a TLS stream
// short): nothing is left to answer then. Shared by the API and admin connections.
#pragma once

#include <boost/asio/error.hpp>
#include <boost/asio/ssl/error.hpp>
#include <boost/beast/core/error.hpp>
#include <boost/beast/http/error.hpp>

namespace eventsvc::host {

inline bool client_gone(const boost::beast::error_code& error) {
  namespace asio = boost::asio;
  namespace http = boost::beast::http;
  return error == http::error::end_of_stream || error == http::error::partial_message ||
         error == asio::error::eof || error == asio::error::connection_reset ||
         error == asio::error::operation_aborted || error == asio::error::broken_pipe ||
         error == asio::ssl::error::stream_truncated;
}

}  // namespace eventsvc::host
