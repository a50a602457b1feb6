#include "server/router.hpp"

#include <gtest/gtest.h>

namespace eventsvc::host {
namespace {

class NullEndpoint final : public Endpoint {
 public:
  Operation operation() const override { return Operation::search; }
  std::vector<std::string_view> scopes() const override { return {}; }
  bool leased() const override { return false; }
  bool reports_concurrency() const override { return false; }
  std::size_t max_body_bytes() const override { return 0; }
  ApiResponse handle(const ApiRequest&) override { return {}; }
};

TEST(Router, MatchesMethodPathAndParameters) {
  Router router;
  auto search = std::make_shared<NullEndpoint>();
  auto receipts = std::make_shared<NullEndpoint>();
  router.add("POST", "/v1/search", search);
  router.add("GET", "/v1/receipts/{receiptId}", receipts);

  EXPECT_EQ(router.match("POST", "/v1/search").endpoint, search.get());
  const auto receipt = router.match("GET", "/v1/receipts/req_0123456789abcdef");
  EXPECT_EQ(receipt.endpoint, receipts.get());
  EXPECT_EQ(receipt.params, (std::vector<std::string>{"req_0123456789abcdef"}));

  const auto wrong_method = router.match("GET", "/v1/search");
  EXPECT_EQ(wrong_method.endpoint, nullptr);
  EXPECT_EQ(wrong_method.allowed_methods, (std::vector<std::string>{"POST"}));

  for (const char* path : {"/v1/search/", "/v1/receipts/", "/v1/receipts", "/v2/search", "",
                           "v1/search", "/v1/receipts/a/b"}) {
    const auto none = router.match("POST", path);
    EXPECT_EQ(none.endpoint, nullptr) << path;
    EXPECT_TRUE(none.allowed_methods.empty()) << path;
  }
}

}  // namespace
}  // namespace eventsvc::host
