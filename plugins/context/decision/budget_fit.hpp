// Choosing what a decision packet keeps within its token budget (docs/context-pack.md#budget).
//
// Shrink before dropping: a packet is first measured at detail level 0 (every item lists every
// event id it rests on, and so does the proof), then 1 (each item lists the first and last few of
// its ids with their count; the proof still lists them all), then 2 (the proof lists only the ids
// the items list). Only when the shrunk packet is still over the budget are items dropped, in a
// fixed order of least importance (`candidates` are numbered in that order). Then, most important
// first, every dropped item that fits again is put back, and the least shrinking level that fits is
// taken. At the end, the packet is within the budget and no dropped item would fit in it.
#pragma once

#include <cstddef>
#include <functional>
#include <vector>

namespace eventsvc::plugins::context {

struct BudgetChoice {
  int level = 0;
  std::vector<bool> dropped;  // per candidate
  std::size_t tokens = 0;     // of the packet chosen
  std::size_t dropped_count() const;
};

// Tokens of the packet that leaves out `dropped` at detail `level`; never grows when more is
// dropped or the level rises.
using PacketMeasure = std::function<std::size_t(const std::vector<bool>& dropped, int level)>;

inline constexpr int kMostShrunk = 2;

// `put_back_from`: candidates below it are only dropped, never tried again one by one (whole
// documents: many, and the last thing a decision needs).
BudgetChoice fit_to_budget(std::size_t candidates, std::size_t budget, std::size_t put_back_from,
                           const PacketMeasure& measure);

}  // namespace eventsvc::plugins::context
