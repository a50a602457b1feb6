// The server's TLS settings: TLS 1.2 or newer, forward-secret AEAD ciphers in the server's order,
// a session cache for resumption.
#pragma once

#include <boost/asio/ssl/context.hpp>

#include "config/host_config.hpp"

namespace eventsvc::host {

// Throws sdk::Error(500) naming the files when the certificate or key cannot be used.
boost::asio::ssl::context make_tls_context(const TlsConfig& tls);

}  // namespace eventsvc::host
