// Instants are Unix epoch milliseconds (UTC). The toolkit's time.hpp parses and renders them.
#pragma once

#include <cstdint>

namespace eventsvc::sdk {

using Millis = std::int64_t;

}  // namespace eventsvc::sdk
