#include "postgres_log.hpp"

EVENTSVC_PLUGIN(eventsvc::plugins::log::PostgresLog)
