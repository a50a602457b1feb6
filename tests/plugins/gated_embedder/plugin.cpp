#include "gated_embedder.hpp"

EVENTSVC_PLUGIN(eventsvc::testing::GatedEmbedder)
