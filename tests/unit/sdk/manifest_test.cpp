#include "eventsvc/sdk/manifest.hpp"

#include <gtest/gtest.h>

#include "eventsvc/sdk/error.hpp"

namespace eventsvc::sdk {
namespace {

constexpr std::string_view kManifestModes[] = {"fast", "safe"};
constexpr ConfigKey kInner[] = {ConfigKey::boolean("enabled", "On or off").defaults_to("true")};
constexpr ConfigKey kConfig[] = {
    ConfigKey::integer("cache_mb", "Cache").defaults_to("64").at_least(8).at_most(1024),
    ConfigKey::string("mode", "Mode").defaults_to(R"("safe")").allowed(kManifestModes),
    ConfigKey::string("secret", "Secret").mandatory(),
    ConfigKey::section("inner", "Inner", kInner)};
constexpr PluginInfo kInfo{"2.1.0", "A store", kConfig};

TEST(Manifest, IsBuiltFromTheDeclaredTable) {
  const Manifest manifest = make_manifest("store", PluginKind::storage, kInfo);
  EXPECT_EQ(to_json(manifest_to_json(manifest)),
            to_json(parse_json(R"({"name":"store","kind":"storage","version":"2.1.0",
      "description":"A store","config":[
      {"key":"cache_mb","type":"integer","description":"Cache","default":64,"minimum":8,
       "maximum":1024},
      {"key":"mode","type":"string","description":"Mode","default":"safe",
       "one_of":["fast","safe"]},
      {"key":"secret","type":"string","description":"Secret","required":true},
      {"key":"inner","type":"section","description":"Inner","fields":[
        {"key":"enabled","type":"boolean","description":"On or off","default":true}]}]})")));
}

TEST(Manifest, ADefaultThatIsNotJsonNamesItsKey) {
  static constexpr ConfigKey kBadInner[] = {ConfigKey::string("name", "Name").defaults_to("x")};
  static constexpr ConfigKey kBad[] = {ConfigKey::section("inner", "Inner", kBadInner)};
  try {
    make_manifest("bad", PluginKind::audit, PluginInfo{"1.0.0", "Bad", kBad});
    ADD_FAILURE() << "accepted a default that is not JSON";
  } catch (const Error& error) {
    EXPECT_EQ(error.status(), 500);
    EXPECT_EQ(error.message(), "manifest: the default of inner.name is not JSON: x");
  }
}

}  // namespace
}  // namespace eventsvc::sdk
