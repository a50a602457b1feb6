#include "eventsvc/sdk/plugin.hpp"

namespace eventsvc::sdk {

// Out-of-line destructor: it anchors the class's vtable and type_info in the SDK library, so host
// and plugins (loaded with RTLD_LOCAL) share one type_info per class and dynamic_cast and exception
// matching work across the boundary.
Plugin::~Plugin() = default;

}  // namespace eventsvc::sdk
