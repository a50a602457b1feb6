// What every fuzz target shares: the input as text or JSON, and the rule that an error from a
// parser of client input is the client's (4xx) — anything else is a defect that stops the run.
#pragma once

#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <optional>
#include <string_view>

#include "eventsvc/sdk/error.hpp"
#include "eventsvc/sdk/json.hpp"
#include "eventsvc/sdk/time.hpp"

namespace eventsvc::fuzz {

inline std::string_view as_text(const std::uint8_t* data, std::size_t size) {
  return {reinterpret_cast<const char*>(data), size};
}

// Stops the run, naming what went wrong: libFuzzer saves the input that did it.
[[noreturn]] inline void defect(const char* what, std::string_view detail) {
  std::fprintf(stderr, "defect: %s: %.*s\n", what, static_cast<int>(detail.size()), detail.data());
  std::abort();
}

inline void require_client_error(const sdk::Error& error) {
  if (error.status() < 400 || error.status() >= 500) defect("not a 4xx", error.message());
}

// The input as JSON, or nothing when it is not JSON (a 4xx, checked).
inline std::optional<sdk::json::value> as_json(std::string_view text) {
  try {
    return sdk::parse_json(text);
  } catch (const sdk::Error& error) {
    require_client_error(error);
    return std::nullopt;
  }
}

// A fixed "now", so that a failure reproduces.
inline constexpr sdk::Millis kNow = 1795500000000;  // 2026-11-24

}  // namespace eventsvc::fuzz
