// The retention keeper: paced batches of removal, and the store's size.
#include "actors/retention_keeper.hpp"

#include <algorithm>

#include "actors/retention_pacing.hpp"
#include "engine/errc.hpp"
#include "engine/log.hpp"

namespace stepwise {

namespace {

using retention_ptr = retention_keeper_actor::stateful_pointer<retention_keeper_state>;

void arm(retention_ptr self, time_point due) {
  auto& st = self->state;
  st.rt->clk->send_at(due, self, retention_tick_atom::value, ++st.gen);
}

void failed(retention_ptr self, const caf::error& err, const char* what) {
  auto& st = self->state;
  st.rt->stats.retention_errors.fetch_add(1, std::memory_order_relaxed);
  st.resume.reset();
  if (!st.failing)
    write_log(st.rt->cfg.log, log_level::warn,
              std::string{"retention: "} + what + ": " + message_of(err)
                + " (tried again next pass)");
  st.failing = true;
  arm(self, st.rt->clk->now() + retention_period(st.rt->cfg));
}

void on_batch(retention_ptr self, const purge_result& r) {
  auto& st = self->state;
  auto& stats = st.rt->stats;
  stats.retention_operations_removed.fetch_add(r.operations, std::memory_order_relaxed);
  stats.retention_events_removed.fetch_add(r.events, std::memory_order_relaxed);
  stats.retention_horizon.store(r.horizon, std::memory_order_relaxed);
  stats.retention_batch_seconds.observe(
    std::chrono::duration<double>(st.rt->clk->now() - st.batch_began).count());
  st.failing = false;
  if (r.found < retention_batch_size(st.rt->cfg) || !r.last) {
    st.resume.reset();
    arm(self, st.rt->clk->now() + retention_period(st.rt->cfg));
    return;
  }
  st.resume = r.last;
  auto now = st.rt->clk->now();
  arm(self, now + retention_pause(now - st.batch_began));
}

void on_tick(retention_ptr self, uint64_t gen) {
  auto& st = self->state;
  if (gen != st.gen)
    return; // a later timer replaced it
  // A draining engine takes no new work; the next start goes on.
  if (st.rt->draining.load(std::memory_order_relaxed))
    return;
  // On a shared store one process removes for all: the others only look
  // again next period, in case it is their turn by then.
  if (!st.rt->leads()) {
    st.resume.reset();
    arm(self, st.rt->clk->now() + retention_period(st.rt->cfg));
    return;
  }
  st.batch_began = st.rt->clk->now();
  purge_request req;
  req.ended_before = st.batch_began - st.rt->cfg.retention;
  req.max_operations = retention_batch_size(st.rt->cfg);
  req.after = st.resume;
  self->request(st.rt->reader(), caf::infinite, purge_atom::value, std::move(req))
    .then([=](const purge_result& r) { on_batch(self, r); },
          [=](const caf::error& err) { failed(self, err, "removing ended operations"); });
}

} // namespace

retention_keeper_actor::behavior_type retention_keeper(retention_ptr self, runtime_ptr rt) {
  self->state.rt = std::move(rt);
  return {
    [=](retention_tick_atom, uint64_t gen) { on_tick(self, gen); },
  };
}

} // namespace stepwise
