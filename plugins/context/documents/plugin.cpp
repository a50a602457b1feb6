#include "documents_mode.hpp"

EVENTSVC_PLUGIN(eventsvc::plugins::context::DocumentsMode)
