// The toolkit's own version. The toolkit is linked into each plugin that uses it and never crosses
// the plugin boundary, so it is not part of the SDK's ABI: a plugin built with toolkit 1.0 loads
// into a host built with 1.1 as long as the SDK contract (eventsvc/sdk/) is the same.
#pragma once

namespace eventsvc::toolkit {

inline constexpr int kVersionMajor = 1;
inline constexpr int kVersionMinor = 0;

}  // namespace eventsvc::toolkit
