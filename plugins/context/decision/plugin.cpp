#include "decision_mode.hpp"

EVENTSVC_PLUGIN(eventsvc::plugins::context::DecisionMode)
