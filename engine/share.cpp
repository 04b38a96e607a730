#include "engine/share.hpp"

#include <algorithm>
#include <limits>

namespace stepwise {

namespace {

int64_t ceil_div(int64_t a, int64_t b) {
  return (a + b - 1) / b;
}

} // namespace

share_plan plan_share(const load_view& view, int64_t mine, bool take_unowned) {
  share_plan plan;
  if (view.live <= 1) {
    plan.claim = std::numeric_limits<size_t>::max();
    return plan;
  }
  mine = std::max<int64_t>(0, mine);
  auto total = std::max<int64_t>(0, view.others) + mine + std::max<int64_t>(0, view.ended_orphans)
               + std::max<int64_t>(0, view.unowned);
  auto share = ceil_div(total, view.live);
  auto slack = std::max<int64_t>(16, share / 10);
  if (mine > share + slack) {
    plan.shed = static_cast<size_t>(mine - share);
    return plan;
  }
  auto below = std::max<int64_t>(0, share - mine);
  plan.hungry = below > slack;
  auto orphans = std::max<int64_t>(0, view.ended_orphans)
                 + (take_unowned ? std::max<int64_t>(0, view.unowned) : 0);
  auto orphans_part = ceil_div(orphans, view.live);
  plan.claim = static_cast<size_t>(std::max(below, orphans_part));
  return plan;
}

} // namespace stepwise
