#include "hashing_embedder.hpp"

#include <gtest/gtest.h>

#include <cmath>

#include "eventsvc/sdk/error.hpp"
#include "support/plugin_context.hpp"
#include "support/temp_dir.hpp"

namespace eventsvc::plugins::embedder {
namespace {

class HashingEmbedderTest : public ::testing::Test {
 protected:
  testing::TempDir dir;
  HashingEmbedder embedder{
      testing::plugin_context(sdk::manifest_of<HashingEmbedder>(), {}, dir.path())};
};

TEST_F(HashingEmbedderTest, DeterministicAndNormalised) {
  const auto a = embedder.embed("Pump pressure dropped below threshold");
  EXPECT_EQ(a, embedder.embed("Pump pressure dropped below threshold"));
  EXPECT_EQ(a.size(), 256U);
  double norm = 0;
  for (const float v : a)
    norm += static_cast<double>(v) * v;
  EXPECT_NEAR(norm, 1.0, 1e-5);
  EXPECT_EQ(embedder.model(), "hashing-v1/d256");
}

TEST_F(HashingEmbedderTest, EmptyTextIsTheZeroVector) {
  for (const float v : embedder.embed(" -- "))
    EXPECT_EQ(v, 0.0F);
}

TEST_F(HashingEmbedderTest, SharedWordsAndSpellingMeanCloser) {
  const auto query = embedder.embed("pump pressure low");
  const double close = sdk::cosine_similarity(query, embedder.embed("low pressure at the pump"));
  const double typo = sdk::cosine_similarity(query, embedder.embed("pumps pressures lowered"));
  const double far = sdk::cosine_similarity(query, embedder.embed("user logged in from browser"));
  EXPECT_GT(close, typo);
  EXPECT_GT(typo, far);
  EXPECT_NEAR(sdk::cosine_similarity(query, query), 1.0, 1e-5);
}

TEST_F(HashingEmbedderTest, DimensionIsConfigurable) {
  testing::TempDir other;
  HashingEmbedder small{testing::plugin_context(sdk::manifest_of<HashingEmbedder>(),
                                                {{"dimension", 64}}, other.path())};
  EXPECT_EQ(small.embed("x").size(), 64U);
  EXPECT_EQ(small.model(), "hashing-v1/d64");
  EXPECT_THROW(testing::plugin_context(sdk::manifest_of<HashingEmbedder>(), {{"dimension", 8}},
                                       other.path()),
               sdk::Error);
}

}  // namespace
}  // namespace eventsvc::plugins::embedder
