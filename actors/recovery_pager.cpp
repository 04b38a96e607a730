#include "actors/recovery_pager.hpp"

#include <algorithm>
#include <chrono>

#include "engine/errc.hpp"
#include "engine/log.hpp"

namespace stepwise {

namespace {

void read_page(recovery_pager_actor::pointer self, const runtime_ptr& rt,
               const internal_dispatcher_actor& dispatcher, const active_position& after) {
  auto limit = static_cast<uint64_t>(std::max<size_t>(1, rt->cfg.recovery_page));
  self->request(rt->reader(), caf::infinite, recover_atom::value, after, limit)
    .then(
      [=](recovered_ops& page) {
        auto next = page.next;
        self->send(dispatcher, page_atom::value, std::move(page));
        if (next)
          read_page(self, rt, dispatcher, *next);
        else
          self->quit();
      },
      [=](caf::error& err) {
        write_log(rt->cfg.log, log_level::warn,
                  "recovery: reading the active operations failed, retrying in 1 s: "
                    + message_of(err));
        rt->clk->send_at(rt->clk->now() + std::chrono::seconds(1), self, recover_atom::value,
                         after);
      });
}

} // namespace

recovery_pager_actor::behavior_type recovery_pager(recovery_pager_actor::pointer self,
                                                   runtime_ptr rt,
                                                   internal_dispatcher_actor dispatcher,
                                                   active_position after) {
  read_page(self, rt, dispatcher, after);
  return {
    [=](recover_atom, const active_position& from) { read_page(self, rt, dispatcher, from); },
  };
}

} // namespace stepwise
