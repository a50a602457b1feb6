#include "eventsvc/sdk/durable_log.hpp"

namespace eventsvc::sdk {

// Out-of-line destructor: anchors the class's vtable and type_info in the SDK library (see
// storage.cpp).
DurableLog::~DurableLog() = default;

}  // namespace eventsvc::sdk
