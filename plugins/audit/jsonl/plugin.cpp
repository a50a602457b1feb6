#include "jsonl_audit.hpp"

EVENTSVC_PLUGIN(eventsvc::plugins::audit::JsonlAudit)
