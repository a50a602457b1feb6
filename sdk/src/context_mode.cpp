#include "eventsvc/sdk/context_mode.hpp"

namespace eventsvc::sdk {

// Out-of-line destructors: they anchor each class's vtable and type_info in the SDK library, so
// host and plugins (loaded with RTLD_LOCAL) share one type_info per class and dynamic_cast and
// exception matching work across the boundary.
ContextMode::~ContextMode() = default;

}  // namespace eventsvc::sdk
