#include "eventsvc/sdk/config.hpp"

#include <gtest/gtest.h>

#include "eventsvc/sdk/error.hpp"

namespace eventsvc::sdk {
namespace {

constexpr std::string_view kModes[] = {"fast", "safe"};
constexpr ConfigKey kLimits[] = {ConfigKey::number("ratio", "ratio").defaults_to("0.5").at_most(1)};
constexpr ConfigKey kSchema[] = {
    ConfigKey::integer("cache_mb", "cache").defaults_to("64").at_least(8).at_most(4096),
    ConfigKey::string("mode", "mode").defaults_to(R"("fast")").allowed(kModes),
    ConfigKey::string("name", "name").mandatory(),
    ConfigKey::boolean("enabled", "on").defaults_to("true"),
    ConfigKey::string_list("tags", "tags"),
    ConfigKey::section("limits", "limits", kLimits),
};

ConfigSchema schema() {
  return schema_of(kSchema);
}

std::string failure(const json::object& raw) {
  const LocationMap locations{{"cache_mb", {"eventsvc.yaml", 12}},
                              {"bogus", {"eventsvc.yaml", 14}},
                              {"limits.ratio", {"eventsvc.yaml", 16}}};
  try {
    validate_config(schema(), raw, "plugins.x.config", locations, {"eventsvc.yaml", 10});
  } catch (const Error& error) {
    return error.message();
  }
  return "";
}

TEST(ConfigValidation, AppliesDefaults) {
  const auto section =
      validate_config(schema(), {{"name", "n"}}, "plugins.x.config", {}, {"f.yaml", 1});
  EXPECT_EQ(section.get_int("cache_mb"), 64);
  EXPECT_EQ(section.get_string("mode"), "fast");
  EXPECT_TRUE(section.get_bool("enabled"));
  EXPECT_FALSE(section.has("tags"));
  EXPECT_DOUBLE_EQ(section.get_section("limits").get_number("ratio"), 0.5);
}

TEST(ConfigValidation, UnknownKeyNamesItAndTheAllowedOnes) {
  EXPECT_EQ(failure({{"name", "n"}, {"bogus", 1}}),
            "eventsvc.yaml:14 plugins.x.config.bogus: unknown key; allowed keys: cache_mb, mode, "
            "name, enabled, tags, limits");
}

TEST(ConfigValidation, WrongTypesAndBoundsNameFileLineAndKey) {
  EXPECT_EQ(failure({{"name", "n"}, {"cache_mb", "big"}}),
            "eventsvc.yaml:12 plugins.x.config.cache_mb: must be an integer");
  EXPECT_EQ(failure({{"name", "n"}, {"cache_mb", 4}}),
            "eventsvc.yaml:12 plugins.x.config.cache_mb: must be at least 8");
  EXPECT_EQ(failure({{"name", "n"}, {"limits", {{"ratio", 2}}}}),
            "eventsvc.yaml:16 plugins.x.config.limits.ratio: must be at most 1");
  EXPECT_EQ(failure({{"name", "n"}, {"mode", "slow"}}),
            "eventsvc.yaml:10 plugins.x.config.mode: must be one of: fast, safe");
  EXPECT_EQ(failure({{"name", 5}}),
            "eventsvc.yaml:10 plugins.x.config.name: must be a string (quote the value)");
  EXPECT_EQ(failure({{"name", "n"}, {"tags", json::array{"a", 1}}}),
            "eventsvc.yaml:10 plugins.x.config.tags: must be a list of strings");
  EXPECT_EQ(failure({}), "eventsvc.yaml:10 plugins.x.config.name: is required");
}

TEST(ConfigSection, FailNamesTheKeyForPluginChecks) {
  const LocationMap locations{{"name", {"eventsvc.yaml", 3}}};
  const auto section = validate_config(schema(), {{"name", "n"}}, "plugins.x.config", locations,
                                       {"eventsvc.yaml", 1});
  try {
    section.fail("name", "no such directory");
    FAIL();
  } catch (const Error& error) {
    EXPECT_EQ(error.message(), "eventsvc.yaml:3 plugins.x.config.name: no such directory");
  }
}

}  // namespace
}  // namespace eventsvc::sdk
