#include "eventsvc/toolkit/text.hpp"

#include <gtest/gtest.h>

#include "eventsvc/sdk/error.hpp"

namespace eventsvc::toolkit {
namespace {

using namespace eventsvc::sdk;

using Tokens = std::vector<std::string>;

TEST(Tokenizer, SplitsAndLowercases) {
  EXPECT_EQ(tokenize("Disk FULL on host-42: /var (98%)"),
            (Tokens{"disk", "full", "on", "host", "42", "var", "98"}));
  EXPECT_EQ(tokenize("disk_full"), (Tokens{"disk", "full"}));
  EXPECT_EQ(tokenize(""), Tokens{});
}

TEST(Tokenizer, UnicodeAware) {
  EXPECT_EQ(tokenize("GRÜSSE aus Köln"), (Tokens{"grüsse", "aus", "köln"}));
  EXPECT_EQ(tokenize("ÉCOLE Ωμέγα ПРИВЕТ"), (Tokens{"école", "ωμέγα", "привет"}));
  EXPECT_EQ(tokenize("東京タワー"), (Tokens{"東", "京", "タ", "ワ", "ー"}));
  EXPECT_EQ(tokenize("東京 tower"), (Tokens{"東", "京", "tower"}));
  EXPECT_EQ(tokenize("a\xff"
                     "b"),
            (Tokens{"a", "b"}));  // invalid UTF-8 separates
  EXPECT_EQ(tokenize("naïve café"), (Tokens{"naïve", "café"}));
}

TEST(Tokenizer, CutsVeryLongTokens) {
  const auto tokens = tokenize(std::string(200, 'a') + " b");
  ASSERT_EQ(tokens.size(), 2U);
  EXPECT_EQ(tokens[0].size(), kMaxTokenBytes);
}

TEST(FoldCase, LowercasesEveryScript) {
  EXPECT_EQ(fold_case("ÄBC-Ω"), "äbc-ω");
}

TEST(TextQuery, ParsesTheDocumentedSyntax) {
  const auto query = parse_text_query("Disk  \"Out of SPACE\" -debug  vol* 10.0.0.1");
  EXPECT_EQ(query.words, (Tokens{"disk"}));
  ASSERT_EQ(query.phrases.size(), 2U);
  EXPECT_EQ(query.phrases[0], (Tokens{"out", "of", "space"}));
  EXPECT_EQ(query.phrases[1], (Tokens{"10", "0", "0", "1"}));
  ASSERT_EQ(query.excluded.size(), 1U);
  EXPECT_EQ(query.excluded[0], (Tokens{"debug"}));
  EXPECT_EQ(query.prefixes, (Tokens{"vol"}));
}

TEST(TextQuery, NeedsSomethingPositive) {
  EXPECT_THROW(parse_text_query("-debug"), Error);
  EXPECT_THROW(parse_text_query("  "), Error);
  EXPECT_THROW(parse_text_query("!!!"), Error);
}

TEST(TextMatches, WordsPrefixesPhrasesExclusions) {
  Record record;
  record.id = "evt-1";
  record.type = "alert";
  record.payload = parse_json(R"({"message":"Disk out of space on vol7","tags":["prod","db"]})");
  const auto tokens = record_tokens(record);
  EXPECT_TRUE(text_matches(parse_text_query("disk space"), tokens));
  EXPECT_TRUE(text_matches(parse_text_query("\"out of space\""), tokens));
  EXPECT_FALSE(text_matches(parse_text_query("\"space out\""), tokens));
  EXPECT_TRUE(text_matches(parse_text_query("vol*"), tokens));
  EXPECT_FALSE(text_matches(parse_text_query("volume*"), tokens));
  EXPECT_FALSE(text_matches(parse_text_query("disk -prod"), tokens));
  EXPECT_TRUE(text_matches(parse_text_query("disk -staging"), tokens));
  EXPECT_TRUE(text_matches(parse_text_query("message"), tokens));  // keys are searchable
  EXPECT_TRUE(text_matches(parse_text_query("alert"), tokens));
  // Phrases never span two values.
  EXPECT_FALSE(text_matches(parse_text_query("\"prod db\""), tokens));
}

TEST(Bm25, RarerTermsAndShorterDocumentsScoreHigher) {
  const Bm25 bm25;
  EXPECT_GT(Bm25::idf(1000, 1), Bm25::idf(1000, 500));
  EXPECT_GE(Bm25::idf(10, 10), 0.0);
  const double idf = Bm25::idf(100, 10);
  EXPECT_GT(bm25.term_score(idf, 1, 5, 10), bm25.term_score(idf, 1, 20, 10));
  EXPECT_GT(bm25.term_score(idf, 3, 10, 10), bm25.term_score(idf, 1, 10, 10));
  EXPECT_EQ(bm25.term_score(idf, 0, 10, 10), 0.0);
}

}  // namespace
}  // namespace eventsvc::toolkit
