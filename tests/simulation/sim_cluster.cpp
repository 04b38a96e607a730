#include "tests/simulation/sim_cluster.hpp"

#include <caf/send.hpp>

#include "tests/simulation/invariants.hpp"

namespace stepwise::sim {

sim_cluster::sim_cluster(sim_log& log, std::mt19937_64& rng, sim_store& store, size_t n)
  : procs(n), log_(log), rng_(rng), store_(store) {
  // nop
}

bool sim_cluster::all_up() const {
  for (auto& p : procs)
    if (!p.world)
      return false;
  return true;
}

void sim_cluster::advance(duration d) {
  for (auto& p : procs)
    if (p.world)
      p.world->advance(d);
}

std::optional<time_point> sim_cluster::next_due() {
  std::optional<time_point> out;
  for (auto& p : procs)
    if (p.world)
      if (auto due = p.world->clock().next_due(); due && (!out || *due < *out))
        out = due;
  return out;
}

void sim_cluster::post() {
  auto sent = store_.take_notices();
  if (sent.empty())
    return;
  for (auto& p : procs)
    if (p.world)
      p.inbox.insert(p.inbox.end(), sent.begin(), sent.end());
}

void sim_cluster::hear(size_t i) {
  auto& p = procs[i];
  notices got;
  got.reconnected = std::exchange(p.reconnected, false);
  if (!p.inbox.empty()) {
    auto k = rng_() % p.inbox.size();
    auto fate = rng_() % 20;
    log_.choose(k * 20 + fate);
    auto n = p.inbox[k];
    if (fate == 0) {
      // The connection drops: everything on its way is lost, and the
      // next wait says so (the router then reads at once).
      log_.note("process " + std::to_string(i) + ": the listening connection drops ("
                + std::to_string(p.inbox.size()) + " notifications lost)");
      counts.dropped_connections += 1;
      counts.lost += p.inbox.size();
      p.inbox.clear();
      p.reconnected = true;
      return;
    }
    if (fate == 1) {
      // Lost without a trace: only the lease tick's reads make up for it.
      log_.note("process " + std::to_string(i) + ": notification " + n.channel + " '" + n.payload
                + "' is lost");
      counts.lost += 1;
      p.inbox.erase(p.inbox.begin() + static_cast<std::ptrdiff_t>(k));
      return;
    }
    if (fate == 2)
      counts.duplicated += 1; // stays on its way: heard again later
    else
      p.inbox.erase(p.inbox.begin() + static_cast<std::ptrdiff_t>(k));
    log_.note("process " + std::to_string(i) + " hears " + n.channel + " '" + n.payload + "'");
    got.items.push_back(std::move(n));
  } else {
    log_.note("process " + std::to_string(i) + " listens again");
  }
  counts.delivered += got.items.size();
  p.world->hear(got, !std::exchange(p.listening, true));
}

bool sim_cluster::quiet() {
  for (size_t i = 0; i < procs.size(); ++i)
    if (!procs[i].world || !procs[i].world->quiet() || can_hear(i))
      return false;
  return true;
}

bool sim_cluster::act(size_t i, bool draining, bool hang_calls) {
  auto& w = *procs[i].world;
  auto& out = *procs[i].outside;
  auto jobs = w.sched().jobs.size();
  bool can_take = w.running().size() < w.workers() && w.pool().backlog() > 0;
  uint64_t weights[] = {jobs ? 10u : 0u,
                        can_take ? 4u : 0u,
                        !w.running().empty() ? 4u : 0u,
                        w.writer().has_work() ? 3u : 0u,
                        w.writer().admission_due() ? 2u : 0u,
                        !out.calls.empty() ? 3u : 0u,
                        draining ? 0u : 1u,
                        !out.watches.empty() ? 2u : 0u,
                        w.writer().claim_due() ? 2u : 0u,
                        can_hear(i) ? 2u : 0u,
                        workers ? workers->weight(i, w, draining) : 0u};
  uint64_t total = 0;
  for (auto x : weights)
    total += x;
  if (total == 0)
    return false;
  auto r = rng_() % total;
  size_t what = 0;
  while (r >= weights[what])
    r -= weights[what++];
  log_.choose(what);
  switch (what) {
    case 0: {
      auto k = rng_() % jobs;
      log_.choose(k);
      log_.note(w.deliver(k, log_.tracing()));
      deliveries += 1;
      check_actors(log_, w);
      break;
    }
    case 1: {
      log_.note("a worker takes a job");
      auto job = w.pool().take();
      w.running().push_back(std::move(*job));
      break;
    }
    case 2: {
      auto k = rng_() % w.running().size();
      log_.choose(k);
      auto job = std::move(w.running()[k]);
      w.running().erase(w.running().begin() + static_cast<std::ptrdiff_t>(k));
      log_.note("a worker runs a job");
      job();
      break;
    }
    case 3:
      log_.note("the writer writes");
      w.writer().write_once();
      break;
    case 4:
      log_.note("the writer runs an admission round");
      w.writer().admit_once();
      break;
    case 5:
      end_call(i, hang_calls && !draining);
      break;
    case 6:
      tick(false);
      break;
    case 7:
      report_watch(i);
      break;
    case 8:
      log_.note("the writer claims orphans (and renews the lease)");
      w.writer().claim_once();
      break;
    case 9:
      hear(i);
      break;
    case 10:
      workers->act(i, w, draining);
      break;
  }
  return true;
}

void sim_cluster::end_call(size_t i, bool may_hang) {
  auto& out = *procs[i].outside;
  auto& calls = out.calls;
  auto k = rng_() % calls.size();
  log_.choose(k);
  auto call = std::move(calls[k]);
  calls.erase(calls.begin() + static_cast<std::ptrdiff_t>(k));
  if (may_hang && rng_() % 4 == 0) {
    log_.note("call of " + call.context().operation_id() + " hangs");
    return;
  }
  auto& ctx = call.context();
  log_.note("call of " + ctx.operation_id() + " step " + ctx.step_name() + " ends");
  if (!ctx.stop().stop_requested()) // an abandoned attempt has nothing to write
    out.drain.finished(store_, ctx.operation_id(), ctx.step_name(), ctx.attempt());
  call.complete(planned(ctx.input(), ctx.step_name(), ctx.attempt()));
}

void sim_cluster::report_watch(size_t i) {
  auto& all = procs[i].outside->watches;
  auto k = rng_() % all.size();
  log_.choose(k);
  auto req = std::move(all[k]);
  all.erase(all.begin() + static_cast<std::ptrdiff_t>(k));
  log_.note("watcher reports " + req.operation_id + " attempt " + std::to_string(req.attempt));
  caf::anon_send(req.reply_to, watch_done_atom::value, settle(req));
}

void sim_cluster::tick(bool quiet) {
  using namespace std::chrono_literals;
  std::optional<time_point> now;
  for (auto& p : procs)
    if (p.world && !now)
      now = p.world->clock().now();
  auto next = next_due();
  duration d = std::chrono::milliseconds(1 + rng_() % 300);
  if (next && now && (quiet || rng_() % 2 == 0))
    d = std::max(duration{0}, *next - *now);
  if (quiet)
    d = std::min<duration>(std::max<duration>(d, 1ms), 1s);
  log_.choose(static_cast<uint64_t>(d.count()));
  log_.note("time +" + std::to_string(d.count() / 1000) + " ms");
  advance(d);
}

} // namespace stepwise::sim
