#include "api_key_auth.hpp"

EVENTSVC_PLUGIN(eventsvc::plugins::apikey::ApiKeyAuth)
