#include "api_key_auth.hpp"

#include <gtest/gtest.h>
#include <sys/stat.h>

#include <fstream>
#include <sstream>

#include "eventsvc/sdk/error.hpp"
#include "eventsvc/toolkit/digest.hpp"
#include "eventsvc/toolkit/time.hpp"
#include "support/plugin_context.hpp"
#include "support/temp_dir.hpp"

namespace eventsvc::plugins::apikey {
namespace {

using testing::plugin_context;

sdk::KeyRequest request(std::string workspace, sdk::Environment environment,
                        std::vector<std::string> scopes = {"events:read", "events:write"}) {
  return {{std::move(workspace), environment}, std::move(scopes), "default", "a label"};
}

class ApiKeyAuthTest : public ::testing::Test {
 protected:
  testing::TempDir dir;
  ApiKeyAuth auth{plugin_context(sdk::manifest_of<ApiKeyAuth>(), {}, dir.path())};
};

TEST_F(ApiKeyAuthTest, CreatedKeyAuthenticatesAsItsTenant) {
  const auto created = auth.create_key(request("acme", sdk::Environment::live));
  const auto principal = auth.authenticate(created.secret);
  ASSERT_TRUE(principal);
  EXPECT_EQ(principal->tenant.workspace, "acme");
  EXPECT_EQ(principal->tenant.environment, sdk::Environment::live);
  EXPECT_EQ(principal->plan, "default");
  EXPECT_EQ(principal->key_id, created.info.id);
  EXPECT_TRUE(principal->has_scope("events:read"));
  EXPECT_TRUE(principal->has_scope("events:write"));
}

TEST_F(ApiKeyAuthTest, WrongSecretWithAValidIdIsRejected) {
  const auto created = auth.create_key(request("acme", sdk::Environment::test));
  std::string forged = created.secret;
  forged.back() = forged.back() == 'a' ? 'b' : 'a';
  EXPECT_FALSE(auth.authenticate(forged));
  EXPECT_FALSE(auth.authenticate("garbage"));
  EXPECT_FALSE(auth.authenticate(""));
}

TEST_F(ApiKeyAuthTest, EnvironmentInTheTextMustMatchTheStoredOne) {
  const auto created = auth.create_key(request("acme", sdk::Environment::test));
  std::string other = created.secret;
  other.replace(0, 8, "key_live");
  EXPECT_FALSE(auth.authenticate(other));
}

TEST_F(ApiKeyAuthTest, RevokedKeysStopWorking) {
  const auto created = auth.create_key(request("acme", sdk::Environment::test));
  ASSERT_TRUE(auth.authenticate(created.secret));
  EXPECT_TRUE(auth.revoke_key(created.info.id));
  EXPECT_FALSE(auth.authenticate(created.secret));
  EXPECT_FALSE(auth.revoke_key("nosuchid"));
  const auto keys = auth.list_keys();
  ASSERT_EQ(keys.size(), 1U);
  EXPECT_TRUE(keys[0].revoked_at);
}

TEST_F(ApiKeyAuthTest, ChangesByAnotherInstanceAreSeenWithoutRestart) {
  ApiKeyAuth cli{plugin_context(sdk::manifest_of<ApiKeyAuth>(), {}, dir.path())};
  EXPECT_FALSE(auth.authenticate("key_test_0123456789abcdefABCDEF0123456789"));
  const auto created = cli.create_key(request("acme", sdk::Environment::test));
  EXPECT_TRUE(auth.authenticate(created.secret));
  cli.revoke_key(created.info.id);
  EXPECT_FALSE(auth.authenticate(created.secret));
}

TEST_F(ApiKeyAuthTest, FileHoldsDigestsOnlyWithOwnerOnlyPermissions) {
  const auto created = auth.create_key(request("acme", sdk::Environment::test));
  const auto file = dir.path() / "keys.json";
  struct stat info {};
  ASSERT_EQ(::stat(file.c_str(), &info), 0);
  EXPECT_EQ(info.st_mode & 0777, 0600);
  std::ifstream in(file);
  std::stringstream text;
  text << in.rdbuf();
  EXPECT_EQ(text.str().find(created.secret), std::string::npos);
  EXPECT_EQ(text.str().find(created.secret.substr(17)), std::string::npos);
  EXPECT_NE(text.str().find(toolkit::sha256_hex(created.secret)), std::string::npos);
}

TEST_F(ApiKeyAuthTest, ADamagedKeyFileStopsTheStartNamingTheKey) {
  testing::TempDir other;
  for (const std::string bad : {"{\"keys\": [", "{\"keys\": [{\"id\": 5}]}", "[]"}) {
    std::ofstream(other.path() / "keys.json") << bad;
    try {
      ApiKeyAuth damaged{plugin_context(sdk::manifest_of<ApiKeyAuth>(), {}, other.path())};
      FAIL() << "started on a damaged key file: " << bad;
    } catch (const sdk::Error& error) {
      EXPECT_NE(error.message().find("plugins.test.config.keys_file"), std::string::npos)
          << error.message();
      EXPECT_NE(error.message().find("keys.json is damaged"), std::string::npos) << error.message();
    }
  }
}

TEST_F(ApiKeyAuthTest, ADamagedReloadKeepsTheKeysReadBeforeAndIsLoggedOnce) {
  auto context = plugin_context(sdk::manifest_of<ApiKeyAuth>(), {}, dir.path());
  const auto logger = std::static_pointer_cast<testing::RecordingLogger>(context.logger);
  ApiKeyAuth server{context};
  const auto created = auth.create_key(request("acme", sdk::Environment::test));
  ASSERT_TRUE(server.authenticate(created.secret));
  const auto file = dir.path() / "keys.json";
  std::stringstream good;
  good << std::ifstream(file).rdbuf();
  std::ofstream(file, std::ios::trunc) << "{\"keys\": [ damaged";
  for (int i = 0; i < 3; ++i)
    EXPECT_TRUE(server.authenticate(created.secret));
  const auto lines = logger->lines();
  ASSERT_EQ(lines.size(), 1U);
  EXPECT_NE(lines.front().find("keys.json is damaged"), std::string::npos) << lines.front();
  EXPECT_NE(lines.front().find("the keys read before stay in force"), std::string::npos);
  // Mended: read again, and revocations take effect as before.
  std::ofstream(file, std::ios::trunc) << good.str();
  auth.revoke_key(created.info.id);
  EXPECT_FALSE(server.authenticate(created.secret));
}

TEST_F(ApiKeyAuthTest, ConfiguredWordPrefixesKeys) {
  testing::TempDir other;
  ApiKeyAuth acme{
      plugin_context(sdk::manifest_of<ApiKeyAuth>(), {{"key_word", "acme"}}, other.path())};
  const auto created = acme.create_key(request("w", sdk::Environment::live));
  EXPECT_EQ(created.secret.substr(0, 10), "acme_live_");
  EXPECT_TRUE(acme.authenticate(created.secret));
  // A key of another word is not one of ours.
  const auto ours = auth.create_key(request("w", sdk::Environment::live));
  EXPECT_FALSE(acme.authenticate(ours.secret));
}

TEST_F(ApiKeyAuthTest, InvalidKeyWordIsAConfigErrorNamingTheKey) {
  testing::TempDir other;
  try {
    ApiKeyAuth bad{
        plugin_context(sdk::manifest_of<ApiKeyAuth>(), {{"key_word", "Bad_Word"}}, other.path())};
    FAIL() << "accepted an invalid key_word";
  } catch (const sdk::Error& error) {
    EXPECT_NE(error.message().find("plugins.test.config.key_word"), std::string::npos)
        << error.message();
  }
}

TEST_F(ApiKeyAuthTest, KeyRequestsAreValidated) {
  EXPECT_THROW(auth.create_key(request("bad workspace", sdk::Environment::test)), sdk::Error);
  EXPECT_THROW(auth.create_key(request("w", sdk::Environment::test, {"events:admin"})), sdk::Error);
  // No scopes is allowed: such a key authenticates and is refused by every route.
  const auto created = auth.create_key(request("w", sdk::Environment::test, {}));
  const auto principal = auth.authenticate(created.secret);
  ASSERT_TRUE(principal);
  EXPECT_TRUE(principal->scopes.empty());
}

// Last use, to the minute: absent until a key authenticates; kept over a restart; a failed
// attempt is no use.
TEST_F(ApiKeyAuthTest, ListedKeysSayWhenTheyWereLastUsed) {
  const auto used = auth.create_key(request("acme", sdk::Environment::test));
  const auto idle = auth.create_key(request("acme", sdk::Environment::test));
  std::string forged = idle.secret;
  forged.back() = forged.back() == 'a' ? 'b' : 'a';
  EXPECT_FALSE(auth.authenticate(forged));
  const auto before = toolkit::now_millis();
  ASSERT_TRUE(auth.authenticate(used.secret));
  const auto keys = auth.list_keys();
  ASSERT_EQ(keys.size(), 2u);
  const auto& listed_used = keys[0].id == used.info.id ? keys[0] : keys[1];
  const auto& listed_idle = keys[0].id == used.info.id ? keys[1] : keys[0];
  ASSERT_TRUE(listed_used.last_used_at);
  EXPECT_GE(*listed_used.last_used_at, before);
  EXPECT_FALSE(listed_idle.last_used_at);

  ApiKeyAuth restarted{plugin_context(sdk::manifest_of<ApiKeyAuth>(), {}, dir.path())};
  for (const auto& key : restarted.list_keys()) {
    if (key.id == used.info.id) {
      EXPECT_EQ(key.last_used_at, listed_used.last_used_at);
    } else {
      EXPECT_FALSE(key.last_used_at);
    }
  }
}

}  // namespace
}  // namespace eventsvc::plugins::apikey
