// Paging cursors: what a sealed cursor carries back, and every way one is refused.
#include "api/page_cursor.hpp"

#include <gtest/gtest.h>
#include <openssl/evp.h>
#include <openssl/hmac.h>

#include <array>

#include "api/cursor_codec.hpp"
#include "eventsvc/sdk/error.hpp"
#include "server/http_message.hpp"
#include "support/temp_dir.hpp"

namespace eventsvc::host {
namespace {

const sdk::Tenant kTenant{"acme", sdk::Environment::test};
const std::string kKey(32, 'k');

PageCursor cursor_at(sdk::Millis expires_at) {
  PageCursor cursor;
  cursor.read = "search";
  cursor.tenant = tenant_digest(kTenant);
  cursor.request = request_digest(sdk::parse_json(R"({"query":"disk"})"));
  cursor.now = 1000;
  cursor.expires_at = expires_at;
  cursor.after = {1.0 / 3.0, 1700000000123, "evt-\"7\""};
  auto statistics = std::make_shared<sdk::RankStatistics>();
  statistics->documents = 10;
  statistics->length = 77;
  statistics->frequencies = {{"disk", 3}, {"ünï", 1}};
  cursor.statistics = statistics;
  return cursor;
}

int status_of(const std::function<void()>& open) {
  try {
    open();
  } catch (const sdk::Error& error) {
    return error.status();
  }
  return 200;
}

TEST(PageCursor, OpensToWhatWasSealed) {
  const CursorSeal seal(kKey);
  const std::string text = seal.seal(cursor_at(5000));
  EXPECT_TRUE(text.starts_with("c2."));
  // URL-safe as it is: no escaping needed on `?cursor=`.
  EXPECT_EQ(
      text.find_first_not_of("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_."),
      std::string::npos);
  // The same body in another member order and spacing is the same request.
  const auto request = request_digest(sdk::parse_json(R"({ "query" : "disk" })"));
  const PageCursor opened = seal.open(text, "search", kTenant, request, 4999);
  EXPECT_EQ(opened.now, 1000);
  EXPECT_EQ(opened.after.score, 1.0 / 3.0);  // exactly: later pages compare scores
  EXPECT_EQ(opened.after.timestamp, 1700000000123);
  EXPECT_EQ(opened.after.id, "evt-\"7\"");
  ASSERT_TRUE(opened.statistics);
  EXPECT_EQ(opened.statistics->documents, 10U);
  EXPECT_EQ(opened.statistics->length, 77U);
  EXPECT_EQ(opened.statistics->frequencies,
            (std::map<std::string, std::uint64_t, std::less<>>{{"disk", 3}, {"ünï", 1}}));
}

TEST(PageCursor, RefusesEditedForeignAndExpiredCursors) {
  const CursorSeal seal(kKey);
  const PageCursor cursor = cursor_at(5000);
  const std::string text = seal.seal(cursor);
  const auto open = [&](const std::string& t, std::string_view read, const sdk::Tenant& tenant,
                        const std::string& request, sdk::Millis now) {
    return status_of([&] { seal.open(t, read, tenant, request, now); });
  };
  EXPECT_EQ(open(text, "search", kTenant, cursor.request, 4999), 200);
  for (std::size_t i = 3; i < text.size(); i += 7) {
    std::string edited = text;
    edited[i] = edited[i] == 'x' ? 'y' : 'x';
    EXPECT_EQ(open(edited, "search", kTenant, cursor.request, 4999), 400) << i;
  }
  EXPECT_EQ(
      open(CursorSeal(std::string(32, 'z')).seal(cursor), "search", kTenant, cursor.request, 4999),
      400);
  EXPECT_EQ(open("", "search", kTenant, cursor.request, 4999), 400);
  EXPECT_EQ(open("c1..", "search", kTenant, cursor.request, 4999), 400);
  EXPECT_EQ(open(text, "query", kTenant, cursor.request, 4999), 400);
  EXPECT_EQ(open(text, "search", {"acme", sdk::Environment::live}, cursor.request, 4999), 400);
  EXPECT_EQ(open(text, "search", {"other", sdk::Environment::test}, cursor.request, 4999), 400);
  EXPECT_EQ(open(text, "search", kTenant, "another body", 4999), 400);
  EXPECT_EQ(open(text, "search", kTenant, cursor.request, 5000), 410);
}

TEST(PageCursor, APositionSealerSealsWhatOpenOpens) {
  const CursorSeal seal(kKey);
  PageCursor common = cursor_at(5000);
  common.statistics = nullptr;
  PositionSealer sealer(seal, common);
  for (const auto& id : {std::string("a"), std::string("evt-\"7\"\\ünï"), std::string(200, 'x')}) {
    const std::string text = sealer.seal({0, 1700000000123, id});
    const PageCursor opened = seal.open(text, "search", kTenant, common.request, 4999);
    EXPECT_EQ(opened.after.id, id);
    EXPECT_EQ(opened.after.timestamp, 1700000000123);
    EXPECT_EQ(opened.now, common.now);
    EXPECT_EQ(opened.expires_at, common.expires_at);
    std::string edited = text;
    edited[text.size() / 2] = edited[text.size() / 2] == 'A' ? 'B' : 'A';
    EXPECT_THROW(seal.open(edited, "search", kTenant, common.request, 4999), sdk::Error);
  }
  // Another key's sealer is refused.
  const CursorSeal other(std::string(32, 'o'));
  EXPECT_THROW(seal.open(PositionSealer(other, common).seal({0, 1, "a"}), "search", kTenant,
                         common.request, 4999),
               sdk::Error);
}

TEST(PageCursor, APositionSealerCarriesTheFeedSpanAndIsShort) {
  const CursorSeal seal(kKey);
  PageCursor common = cursor_at(1000 + 24 * 3600 * 1000);
  common.read = "exports";
  common.statistics = nullptr;
  common.feed_until = "00000000000a1b2c";
  PositionSealer sealer(seal, common);
  const std::string text = sealer.seal({0, 1700000000123, "0000000000000fff"});
  const PageCursor opened = seal.open(text, "exports", kTenant, common.request, 4999);
  EXPECT_EQ(opened.feed_until, "00000000000a1b2c");
  EXPECT_EQ(opened.after.id, "0000000000000fff");
  EXPECT_EQ(opened.after.score, 0);
  // An export writes one per line: the digests only as hints, the numbers as varints.
  EXPECT_TRUE(text.starts_with("c3.")) << text;
  EXPECT_LT(text.size(), 76U) << text;
  // Sealing the next line does not carry anything of the previous one.
  EXPECT_EQ(sealer.seal({0, 1700000000123, "0000000000000fff"}), text);
}

std::string message_of(const std::function<void()>& open) {
  try {
    open();
  } catch (const sdk::Error& error) {
    return error.what();
  }
  return "opened";
}

TEST(PageCursor, AnExportLineCursorIsRefusedAsAnyOther) {
  const CursorSeal seal(kKey);
  PageCursor common = cursor_at(5000);
  common.read = "exports";
  common.statistics = nullptr;
  PositionSealer sealer(seal, common);
  const std::string text = sealer.seal({0, 1700000000123, "evt-1"});
  const auto open = [&](const std::string& t, std::string_view read, const sdk::Tenant& tenant,
                        const std::string& request, sdk::Millis now) {
    return message_of([&] { seal.open(t, read, tenant, request, now); });
  };
  EXPECT_EQ(open(text, "exports", kTenant, common.request, 4999), "opened");
  // Each binding refused with what differs.
  EXPECT_NE(open(text, "query", kTenant, common.request, 4999).find("/v1/exports, not /v1/query"),
            std::string::npos);
  for (const sdk::Tenant& other : {sdk::Tenant{"other", sdk::Environment::test},
                                   sdk::Tenant{"acme", sdk::Environment::live}}) {
    EXPECT_NE(open(text, "exports", other, common.request, 4999).find("another workspace"),
              std::string::npos);
  }
  const std::string other_request = request_digest(sdk::parse_json(R"({"query":"disc"})"));
  EXPECT_NE(open(text, "exports", kTenant, other_request, 4999).find("different request body"),
            std::string::npos);
  EXPECT_EQ(status_of([&] { seal.open(text, "exports", kTenant, common.request, 5000); }), 410);
  // Another server key, any edit and any cut.
  EXPECT_NE(open(PositionSealer(CursorSeal(std::string(32, 'o')), common).seal({0, 1, "evt-1"}),
                 "exports", kTenant, common.request, 4999)
                .find("altered"),
            std::string::npos);
  for (std::size_t i = 3; i < text.size(); ++i) {
    std::string edited = text;
    edited[i] = edited[i] == 'x' ? 'y' : 'x';
    EXPECT_EQ(status_of([&] { seal.open(edited, "exports", kTenant, common.request, 4999); }), 400)
        << i;
  }
  for (std::size_t cut = 0; cut < text.size(); ++cut) {
    EXPECT_EQ(status_of([&] {
                seal.open(text.substr(0, cut), "exports", kTenant, common.request, 4999);
              }),
              400)
        << cut;
  }
  // A payload the codec cannot read is refused by it: an unknown read, a cut hint.
  EXPECT_THROW(decode_line_cursor("\x09"), std::runtime_error);
  EXPECT_THROW(decode_line_cursor("\x03\x01\x02"), std::runtime_error);
}

// A c1 cursor as the previous form wrote it: its payload as JSON, then "." and the whole HMAC.
std::string json_cursor(const std::string& key, const std::string& payload) {
  std::string text = "c1.";
  append_base64url(payload, text);
  std::array<unsigned char, EVP_MAX_MD_SIZE> digest{};
  unsigned int length = 0;
  HMAC(EVP_sha256(), key.data(), static_cast<int>(key.size()),
       reinterpret_cast<const unsigned char*>(text.data()), text.size(), digest.data(), &length);
  text.push_back('.');
  append_base64url(std::string_view(reinterpret_cast<const char*>(digest.data()), length), text);
  return text;
}

TEST(PageCursor, CursorsOfThePreviousFormStillOpenUntilTheyExpire) {
  const CursorSeal seal(kKey);
  const PageCursor cursor = cursor_at(5000);
  const std::string payload = R"({"r":"search","t":")" + cursor.tenant + R"(","b":")" +
                              cursor.request +
                              R"(","n":1000,"e":5000,"s":0.5,"ts":1700000000123,"id":"evt-9",)"
                              R"("st":{"d":10,"l":77,"f":{"disk":3}}})";
  const std::string text = json_cursor(kKey, payload);
  const PageCursor opened = seal.open(text, "search", kTenant, cursor.request, 4999);
  EXPECT_EQ(opened.after.score, 0.5);
  EXPECT_EQ(opened.after.timestamp, 1700000000123);
  EXPECT_EQ(opened.after.id, "evt-9");
  ASSERT_TRUE(opened.statistics);
  EXPECT_EQ(opened.statistics->frequencies.at("disk"), 3U);
  EXPECT_EQ(status_of([&] { seal.open(text, "search", kTenant, cursor.request, 5000); }), 410);
  EXPECT_EQ(status_of([&] {
              seal.open(json_cursor("another key", payload), "search", kTenant, cursor.request,
                        4999);
            }),
            400);
}

TEST(PageCursor, AnyPayloadThatIsNotOneSealedIsRefused) {
  const CursorSeal seal(kKey);
  const PageCursor cursor = cursor_at(5000);
  const std::string text = seal.seal(cursor);
  // Every cut of a sealed cursor, and the sealed bytes under another version.
  for (std::size_t cut = 0; cut < text.size(); ++cut) {
    EXPECT_EQ(
        status_of([&] { seal.open(text.substr(0, cut), "search", kTenant, cursor.request, 4999); }),
        400)
        << cut;
  }
  EXPECT_EQ(status_of([&] {
              seal.open("c1." + text.substr(3), "search", kTenant, cursor.request, 4999);
            }),
            400);
  // A payload the codec cannot read never reaches it: its tag is checked first.
  EXPECT_THROW(decode_cursor("\x05"), std::runtime_error);
  EXPECT_THROW(decode_cursor(""), std::runtime_error);
}

TEST(PageCursor, TheKeyFileIsCreatedOnceAndKept) {
  const testing::TempDir dir;
  const auto path = dir.path() / "keys" / "cursor.key";
  const std::string text = CursorSeal::from_file(path).seal(cursor_at(5000));
  EXPECT_TRUE(std::filesystem::exists(path));
  EXPECT_EQ((std::filesystem::status(path).permissions() & std::filesystem::perms::group_all),
            std::filesystem::perms::none);
  // A second start reads the same key: cursors survive restarts.
  const PageCursor cursor = cursor_at(5000);
  EXPECT_EQ(CursorSeal::from_file(path).open(text, "search", kTenant, cursor.request, 1).after.id,
            cursor.after.id);
}

TEST(RequestHead, QueryParametersAreDecodedInOrder) {
  RequestHead head;
  head.target = "/v1/query?cursor=c1.a%2Db&x=1+2&&flag";
  const auto parameters = head.query_parameters();
  ASSERT_EQ(parameters.size(), 3U);
  EXPECT_EQ(parameters[0], (std::pair<std::string, std::string>{"cursor", "c1.a-b"}));
  EXPECT_EQ(parameters[1], (std::pair<std::string, std::string>{"x", "1 2"}));
  EXPECT_EQ(parameters[2], (std::pair<std::string, std::string>{"flag", ""}));
  head.target = "/v1/query?cursor=%4";
  EXPECT_THROW(head.query_parameters(), sdk::Error);
  head.target = "/v1/query";
  EXPECT_TRUE(head.query_parameters().empty());
}

}  // namespace
}  // namespace eventsvc::host
