// Choosing what a decision packet keeps within its token budget (docs/context-pack.md#budget).
//
// The packet is measured with every item; only when it is over the budget are items dropped, in a
// fixed order of least importance (`candidates` are numbered in that order). Then, most important
// first, every dropped item that fits again is put back. At the end, the packet is within the
// budget and no dropped item would fit in it. The packet lists ids the same way at every budget
// (budget_fit only drops items), so a larger budget makes a larger packet only by the items it
// keeps.
#pragma once

#include <cstddef>
#include <functional>
#include <vector>

namespace eventsvc::plugins::context {

struct BudgetChoice {
  std::vector<bool> dropped;  // per candidate
  std::size_t tokens = 0;     // of the packet chosen
  std::size_t dropped_count() const;
};

// Tokens of the packet that leaves out `dropped`; never grows when more is dropped.
using PacketMeasure = std::function<std::size_t(const std::vector<bool>& dropped)>;

// `put_back_from`: candidates below it are only dropped, never tried again one by one (whole
// documents: many, and the last thing a decision needs).
BudgetChoice fit_to_budget(std::size_t candidates, std::size_t budget, std::size_t put_back_from,
                           const PacketMeasure& measure);

}  // namespace eventsvc::plugins::context
