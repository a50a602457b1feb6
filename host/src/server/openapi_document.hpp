// docs/openapi.yaml, compiled in: what GET /openapi.yaml answers (no key needed), so that a
// client generator can point at a running server.
#pragma once

#include <string_view>

namespace eventsvc::host {

inline constexpr std::string_view kOpenApiPath = "/openapi.yaml";

std::string_view openapi_document();

}  // namespace eventsvc::host
