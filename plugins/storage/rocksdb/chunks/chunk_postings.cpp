#include "chunks/chunk_postings.hpp"

#include <algorithm>
#include <queue>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "chunks/chunk_keys.hpp"
#include "eventsvc/sdk/error.hpp"
#include "eventsvc/toolkit/text.hpp"
#include "store/key_codec.hpp"

namespace eventsvc::plugins::rocksdb_storage {

TokenCounts TokenCounts::of(const sdk::Record& record) {
  // Every token in one buffer, sorted as spans of it: sorting the token strings themselves (an
  // allocation, copies and moves each) was most of a projection round's tokenising.
  std::string text;
  std::vector<std::pair<std::size_t, std::size_t>> spans;  // offset, size
  toolkit::for_each_text_field(record, [&](std::string_view, std::string_view field) {
    toolkit::for_each_token(field, [&](std::string_view token) {
      spans.emplace_back(text.size(), token.size());
      text += token;
    });
  });
  const auto token_at = [&text](const std::pair<std::size_t, std::size_t>& span) {
    return std::string_view(text.data() + span.first, span.second);
  };
  std::sort(spans.begin(), spans.end(),
            [&](const auto& a, const auto& b) { return token_at(a) < token_at(b); });
  TokenCounts counts;
  counts.length = static_cast<std::uint32_t>(spans.size());
  for (const auto& span : spans) {
    const std::string_view token = token_at(span);
    if (!counts.frequencies.empty() && counts.frequencies.back().first == token) {
      ++counts.frequencies.back().second;
    } else {
      counts.frequencies.emplace_back(std::string(token), 1);
    }
  }
  return counts;
}

TokenCounts TokenCounts::length_of(const sdk::Record& record) {
  TokenCounts counts;
  toolkit::for_each_text_field(record, [&](std::string_view, std::string_view text) {
    toolkit::for_each_token(text, [&](std::string_view) { ++counts.length; });
  });
  return counts;
}

std::string chunk_postings_prefix(std::string_view tenant, std::uint64_t chunk) {
  return chunk_data_prefix(tenant, chunk, kPostingsTag);
}

std::string chunk_postings_key(std::string_view tenant, std::uint64_t chunk,
                               std::string_view token) {
  std::string key = chunk_postings_prefix(tenant, chunk);
  key += token;
  return key;
}

std::string chunk_values_prefix(std::string_view tenant, std::uint64_t chunk) {
  return chunk_data_prefix(tenant, chunk, kValuesTag);
}

std::string chunk_values_key(std::string_view tenant, std::uint64_t chunk, std::string_view term) {
  std::string key = chunk_values_prefix(tenant, chunk);
  key += term;
  return key;
}

std::string string_value_term(std::string_view column, std::string_view text) {
  std::string term(column);
  term.push_back('\0');
  term.push_back('s');
  term += text;
  return term;
}

std::optional<std::string> value_term(std::string_view column, const sdk::json::value& value) {
  char kind = 0;
  switch (value.kind()) {
    case boost::json::kind::string:
      return string_value_term(column, value.get_string());
    case boost::json::kind::bool_:
      kind = value.get_bool() ? 't' : 'f';
      break;
    case boost::json::kind::null:
      kind = 'n';
      break;
    default:
      return std::nullopt;
  }
  std::string term(column);
  term.push_back('\0');
  term.push_back(kind);
  return term;
}

std::string encode_postings(const std::vector<Posting>& postings) {
  std::string out;
  out.reserve(postings.size() * 3 + 4);
  append_varint(out, postings.size());
  std::uint32_t previous = 0;
  for (const auto& posting : postings) {
    append_varint(out, posting.row - previous);
    append_varint(out, posting.frequency);
    previous = posting.row;
  }
  return out;
}

bool decode_postings(std::string_view bytes, std::vector<Posting>& out, std::uint32_t base) {
  const auto count = take_varint(bytes);
  if (!count || *count > bytes.size()) return false;  // every posting takes at least two bytes
  // Decoded in place through a cursor: a common word's postings are most of a ranked search's
  // reading, and two calls a posting to the out-of-line take_varint were an eighth of its time.
  const std::size_t first = out.size();
  out.resize(first + *count);
  const char* at = bytes.data();
  const char* end = at + bytes.size();
  const auto decoded = [&] {
    std::uint64_t row = 0;
    std::uint64_t gap = 0;
    std::uint64_t frequency = 0;
    for (std::size_t i = first; i < out.size(); ++i) {
      if (!next_varint(at, end, gap) || !next_varint(at, end, frequency) || (i > first && gap == 0))
        return false;
      row += gap;
      if (row + base > UINT32_MAX || frequency > UINT32_MAX) return false;
      out[i] = {static_cast<std::uint32_t>(row + base), static_cast<std::uint32_t>(frequency)};
    }
    return at == end;
  };
  if (decoded()) return true;
  out.resize(first);  // damaged: nothing of it appended
  return false;
}

std::string encode_row_set(const std::vector<Posting>& rows) {
  std::string list(1, 'L');
  append_varint(list, rows.size());
  std::uint32_t previous = 0;
  for (const auto& posting : rows) {
    append_varint(list, posting.row - previous);
    previous = posting.row;
  }
  const std::size_t bitmap_size = rows.empty() ? 0 : rows.back().row / 8 + 1;
  if (list.size() <= bitmap_size + 1) return list;
  std::string bitmap(bitmap_size + 1, '\0');
  bitmap[0] = 'B';
  for (const auto& posting : rows) {
    char& byte = bitmap[1 + posting.row / 8];
    byte = static_cast<char>(byte | (1U << (posting.row % 8)));
  }
  return bitmap;
}

namespace {

// Calls visit(row) for each row of a row set, ascending; false when damaged.
template <typename Visit>
bool for_each_row(std::string_view bytes, Visit visit) {
  if (bytes.empty()) return false;
  const char tag = bytes.front();
  bytes.remove_prefix(1);
  if (tag == 'B') {
    for (std::size_t i = 0; i < bytes.size(); ++i) {
      const auto bits = static_cast<unsigned char>(bytes[i]);
      for (unsigned bit = 0; bit < 8; ++bit) {
        if ((bits & (1U << bit)) != 0 && !visit(static_cast<std::uint64_t>(i * 8 + bit))) {
          return false;
        }
      }
    }
    return true;
  }
  if (tag != 'L') return false;
  const auto count = take_varint(bytes);
  if (!count || *count > bytes.size()) return false;
  const char* at = bytes.data();
  const char* end = at + bytes.size();
  std::uint64_t row = 0;
  std::uint64_t gap = 0;
  for (std::uint64_t i = 0; i < *count; ++i) {
    if (!next_varint(at, end, gap) || (i > 0 && gap == 0)) return false;
    row += gap;
    if (!visit(row)) return false;
  }
  return at == end;
}

}  // namespace

bool decode_row_set(std::string_view bytes, std::vector<Posting>& out, std::uint32_t base) {
  return for_each_row(bytes, [&](std::uint64_t row) {
    if (row + base > UINT32_MAX) return false;
    out.push_back({static_cast<std::uint32_t>(row + base), 1});
    return true;
  });
}

bool mark_row_set(std::string_view bytes, RowBits& bits) {
  if (!bytes.empty() && bytes.front() == 'B')
    return bits.set_bytes(bytes.data() + 1, bytes.size() - 1);
  return for_each_row(bytes, [&](std::uint64_t row) {
    if (row >= bits.rows()) return false;
    bits.set(static_cast<std::uint32_t>(row));
    return true;
  });
}

void PostingsBuilder::add(std::uint32_t row, const TokenCounts& counts) {
  for (const auto& [token, frequency] : counts.frequencies) {
    auto it = postings_.find(token);
    if (it == postings_.end()) it = postings_.emplace(token, std::vector<Posting>{}).first;
    it->second.push_back({row, frequency});
  }
}

void PostingsBuilder::add_row(std::string_view term, std::uint32_t row) {
  auto it = postings_.find(term);
  if (it == postings_.end())
    it = postings_.emplace(std::string(term), std::vector<Posting>{}).first;
  it->second.push_back({row, 1});
}

std::vector<std::pair<std::string, std::string>> PostingsBuilder::encode() const {
  std::vector<std::pair<std::string, std::string>> out;
  out.reserve(postings_.size());
  for (const auto* entry : in_key_order(postings_)) {
    const auto& postings = entry->second;
    out.emplace_back(entry->first,
                     frequencies_ ? encode_postings(postings) : encode_row_set(postings));
  }
  return out;
}

namespace {

// The rows of `rows` from `first` on, given their new numbers; the dropped ones removed.
void renumber(std::vector<Posting>& rows, std::size_t first,
              const std::vector<std::uint32_t>& renumbered, std::uint64_t chunk) {
  std::size_t kept = first;
  for (std::size_t i = first; i < rows.size(); ++i) {
    if (rows[i].row >= renumbered.size()) {
      throw sdk::Error::internal("the postings of chunk " + std::to_string(chunk) +
                                 " name a row past its end");
    }
    const std::uint32_t to = renumbered[rows[i].row];
    if (to == kDroppedRow) continue;
    rows[kept] = rows[i];
    rows[kept++].row = to;
  }
  rows.resize(kept);
}

}  // namespace

std::vector<std::pair<std::string, std::string>> merge_term_lists(
    const std::vector<ChunkTermList>& lists, bool frequencies) {
  struct Head {
    std::size_t list;
    std::size_t at;
  };
  // The smallest term on top; of equal terms, the earlier chunk's, whose rows come first.
  auto after = [&](const Head& a, const Head& b) {
    const auto& ta = lists[a.list].terms[a.at].first;
    const auto& tb = lists[b.list].terms[b.at].first;
    if (ta != tb) return ta > tb;
    return a.list > b.list;
  };
  std::priority_queue<Head, std::vector<Head>, decltype(after)> heads(after);
  std::size_t total = 0;
  for (std::size_t i = 0; i < lists.size(); ++i) {
    total += lists[i].terms.size();
    if (!lists[i].terms.empty()) heads.push({i, 0});
  }
  std::vector<std::pair<std::string, std::string>> merged;
  merged.reserve(total);
  std::vector<Posting> rows;
  while (!heads.empty()) {
    const std::string term = lists[heads.top().list].terms[heads.top().at].first;
    rows.clear();
    while (!heads.empty() && lists[heads.top().list].terms[heads.top().at].first == term) {
      const Head head = heads.top();
      heads.pop();
      const ChunkTermList& list = lists[head.list];
      const std::string& bytes = list.terms[head.at].second;
      const std::size_t first = rows.size();
      const std::uint32_t base = list.renumbered != nullptr ? 0 : list.base;
      const bool intact =
          frequencies ? decode_postings(bytes, rows, base) : decode_row_set(bytes, rows, base);
      if (!intact) {
        throw sdk::Error::internal("the postings of chunk " + std::to_string(list.chunk) +
                                   " are damaged");
      }
      if (list.renumbered != nullptr) renumber(rows, first, *list.renumbered, list.chunk);
      if (head.at + 1 < list.terms.size()) heads.push({head.list, head.at + 1});
    }
    if (rows.empty()) continue;  // every row of it was dropped
    merged.emplace_back(term, frequencies ? encode_postings(rows) : encode_row_set(rows));
  }
  return merged;
}

}  // namespace eventsvc::plugins::rocksdb_storage
