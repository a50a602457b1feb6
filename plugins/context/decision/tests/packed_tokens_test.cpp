// The token count a decision pack carries counts the pack that carries it, exactly, and the pack
// stays within its budget: over every size residue and ratio width (a sweep of settle itself), and
// over generated packs of every size, Unicode text and numbers of every width.
#include <gtest/gtest.h>

#include <cmath>
#include <random>
#include <string>

#include "decision_mode.hpp"
#include "decision_packet.hpp"
#include "eventsvc/sdk/context_mode.hpp"
#include "eventsvc/toolkit/context_pack.hpp"
#include "support/context_testing.hpp"

namespace eventsvc::plugins::context {
namespace {

namespace json = sdk::json;
using testing::kT0;


std::size_t packed_tokens(const json::object& context) {
  return context.at("compaction").at("packed_tokens").to_number<std::size_t>();
}

// Every byte length from 20 to 4,000 (text of 1- to 4-byte characters) against sources whose
// ratios print at every width, the 200 among them (861 bytes then had no consistent count).
TEST(PackedTokens, CountTheirOwnPacketForEverySizeAndRatioWidth) {
  const char* characters[] = {"a", "\xc3\xa9", "\xe2\x82\xac", "\xf0\x9f\x98\x80"};
  std::size_t at_four_decimals = 0;
  std::size_t packets = 0;
  for (const std::size_t source : {0UL, 1UL, 3UL, 7UL, 200UL, 201UL, 999UL, 4096UL, 123457UL}) {
    for (std::size_t length = 0; length < 1000; ++length) {
      std::string text;
      for (std::size_t i = 0; i < length; ++i)
        text += characters[(i * 7 + length) % 4];
      json::object packet{
          {"facts", json::array{text}},
          {"compaction",
           json::object{{"source_tokens", source}, {"packed_tokens", 0}, {"ratio", 0}}}};
      settle_packed_tokens(packet, source);
      const std::size_t tokens = packed_tokens(packet);
      ASSERT_EQ(tokens, toolkit::estimate_tokens(packet)) << source << " " << length;
      const double ratio = packet.at("compaction").at("ratio").to_number<double>();
      const double exact = source == 0 ? 0.0 : static_cast<double>(tokens) / source;
      ASSERT_LE(std::abs(ratio - exact), 0.5) << sdk::to_json(packet);
      at_four_decimals += std::abs(ratio - exact) <= 0.00005 + 1e-12 ? 1 : 0;
      ++packets;
    }
  }
  // The ratio is at 4 decimals but in the few packets where no count would count itself so.
  EXPECT_GE(at_four_decimals * 100, packets * 95);
}

// Generated packs: sensors with Unicode names and readings of every width, budgets from the
// smallest to the largest that still trims.
TEST(PackedTokens, GeneratedPacksCountThemselvesAndKeepTheirBudget) {
  std::mt19937 random(20261125);
  const std::string names[] = {"pump", "\xc3\xa9tage", "\xe6\xb8\xa9\xe5\xba\xa6",
                               "\xf0\x9f\x94\xa5-room"};
  for (int pack = 0; pack < 300; ++pack) {
    testing::RecordSet set;
    const int sensors = 1 + static_cast<int>(random() % 40);
    const int readings = 1 + static_cast<int>(random() % 30);
    for (int r = 0; r < readings; ++r) {
      for (int s = 0; s < sensors; ++s) {
        const double magnitude = std::pow(10.0, static_cast<int>(random() % 12) - 4);
        json::object payload{
            {"site", names[s % 4] + std::to_string(s)},
            {"state", (random() % 3 == 0) ? "on" : "off"},
            {"reading", static_cast<double>(random() % 100000) * magnitude / 1000.0},
            {"count", static_cast<std::int64_t>(random()) - (1LL << 31)}};
        set.add("s" + std::to_string(s) + "-" + std::to_string(r), kT0 + r * 60000 + s, payload);
      }
    }
    sdk::ContextRequest request;
    request.mode = "decision";
    request.token_budget = 256 + random() % 6000;
    request.max_facts = 100;
    request.include_documents = random() % 2 == 0;
    auto input = set.input(request, kT0 + 3600000);
    input.subject_fields = testing::fields({"payload.site"});
    const auto context = DecisionMode{{}}.build(input).context;
    ASSERT_EQ(packed_tokens(context), toolkit::estimate_tokens(context)) << pack;
    ASSERT_LE(packed_tokens(context), request.token_budget) << pack;
  }
}

}  // namespace
}  // namespace eventsvc::plugins::context
