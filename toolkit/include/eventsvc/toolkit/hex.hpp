// Lowercase hexadecimal: digests, random identifiers, feed positions and cursors spell bytes so.
#pragma once

#include <optional>
#include <string>
#include <string_view>

namespace eventsvc::toolkit {

// Two lowercase hex digits per byte.
std::string hex_of(std::string_view bytes);
// The bytes `hex` spells; nullopt unless it is an even number of lowercase hex digits.
std::optional<std::string> bytes_of_hex(std::string_view hex);

}  // namespace eventsvc::toolkit
