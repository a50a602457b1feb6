#include "hashing_embedder.hpp"

EVENTSVC_PLUGIN(eventsvc::plugins::embedder::HashingEmbedder)
