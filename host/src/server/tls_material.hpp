// The server's certificate and key. When configured to, creates a self-signed P-256 certificate
// for localhost / 127.0.0.1 / ::1 on first start, so the server speaks HTTPS out of the box.
#pragma once

#include "config/host_config.hpp"

namespace eventsvc::host {

// Ensures the configured certificate and key exist: creates them when both are absent and
// tls.self_signed is true; otherwise throws sdk::Error(500) naming the missing file. Returns true
// when it created them.
bool ensure_tls_material(const TlsConfig& tls);

}  // namespace eventsvc::host
