#include "local_log.hpp"

EVENTSVC_PLUGIN(eventsvc::plugins::log::LocalLog)
