// Out-of-line destructors: they anchor each interface's vtable and type_info in the SDK library, so
// host and plugins (loaded with RTLD_LOCAL) share one type_info per class and dynamic_cast and
// exception matching work across the boundary.
#include "eventsvc/sdk/aggregation.hpp"
#include "eventsvc/sdk/audit.hpp"
#include "eventsvc/sdk/auth.hpp"
#include "eventsvc/sdk/context_mode.hpp"
#include "eventsvc/sdk/embedder.hpp"
#include "eventsvc/sdk/limits.hpp"
#include "eventsvc/sdk/logger.hpp"
#include "eventsvc/sdk/plugin.hpp"
#include "eventsvc/sdk/storage.hpp"

namespace eventsvc::sdk {

Logger::~Logger() = default;
Plugin::~Plugin() = default;
AuthProvider::~AuthProvider() = default;
Storage::~Storage() = default;
Embedder::~Embedder() = default;
AggregationState::~AggregationState() = default;
AggregationOperator::~AggregationOperator() = default;
ContextMode::~ContextMode() = default;
AuditSink::~AuditSink() = default;
Limits::~Limits() = default;

}  // namespace eventsvc::sdk
