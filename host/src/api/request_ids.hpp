// What identifies a request that changes data: the client's Idempotency-Key (the same for every
// retry of one logical request, API-SPEC 4.1) and the server's fresh id for what it accepted.
#pragma once

#include <string>
#include <string_view>

#include "server/http_message.hpp"

namespace eventsvc::host {

// The Idempotency-Key header, checked: 8 to 128 printable ASCII characters, else Error 400.
const std::string& required_idempotency_key(const RequestHead& request);

// `bytes` bytes from the CSPRNG as lowercase hex.
std::string random_hex(std::size_t bytes);

// `prefix` + 16 lowercase hex digits from the CSPRNG (req_..., era_...).
std::string new_random_id(std::string_view prefix);

// Whether `id` is `prefix` followed by 16 lowercase hex digits.
bool is_random_id(std::string_view id, std::string_view prefix);

}  // namespace eventsvc::host
