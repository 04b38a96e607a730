#include "actors/launch.hpp"

#include "actors/retention_keeper.hpp"
#include "actors/schedule_keeper.hpp"

#include <algorithm>
#include <set>
#include <utility>

#include <caf/actor_system.hpp>
#include <caf/send.hpp>

#include "actors/admission_keeper.hpp"
#include "actors/children_keeper.hpp"
#include "actors/dispatcher.hpp"
#include "actors/definitions.hpp"
#include "actors/event_fanout.hpp"
#include "actors/task_broker.hpp"
#include "actors/lease_keeper.hpp"
#include "actors/messages.hpp"
#include "actors/reader_actor.hpp"
#include "actors/real_clock.hpp"
#include "engine/child_notice.hpp"
#include "engine/errc.hpp"
#include "engine/lease_store.hpp"

namespace stepwise {

namespace {

/// Returns a joined lease keeper when the store is shared by processes,
/// null when it serves this process alone.
caf::expected<std::shared_ptr<lease_keeper>> make_keeper(const engine_config& cfg, store& st,
                                                         std::shared_ptr<const clock> clk) {
  auto* leases = st.leases();
  if (!leases)
    return std::shared_ptr<lease_keeper>{};
  // Claims run every ttl / 3: a tiny ttl would turn the writer into a
  // busy loop of claims.
  if (cfg.lease_ttl < std::chrono::milliseconds(100))
    return make_error(errc::invalid_argument, "lease_ttl must be at least 100 ms");
  leases->describe(cfg.advertise_url, cfg.build_version);
  auto keeper = std::make_shared<lease_keeper>(*leases, std::move(clk), cfg.lease_ttl,
                                               cfg.claim_batch, cfg.owner_ids);
  if (auto err = keeper->join())
    return make_error(errc::store_failure,
                      "recovery: cannot join the store's leases: " + message_of(err));
  return keeper;
}

/// Says once that secret values will be stored as they are: without a key
/// ring nothing seals them.
void warn_plaintext_secrets(const engine_config& cfg, const registry& workflows) {
  if (cfg.secret_keys)
    return;
  std::set<std::string> names;
  for (auto& wf : workflows.all())
    if (!wf->secrets().empty())
      names.insert(wf->name());
  if (names.empty())
    return;
  std::string list;
  for (auto& n : names)
    list += (list.empty() ? "" : ", ") + n;
  write_log(cfg.log, log_level::warn,
            "no key ring (engine_config::secret_keys): the secret values of " + list
              + " are stored in plaintext");
}

} // namespace

caf::expected<launched> launch_runtime(caf::actor_system& sys, engine_config cfg,
                                       registry workflows, store_ptr st, drive how, uint32_t node) {
  if (!st)
    return make_error(errc::invalid_argument, "no store given");
  std::shared_ptr<clock> clk = cfg.clock ? cfg.clock : std::make_shared<real_clock>(sys);
  auto keeper = make_keeper(cfg, *st, clk);
  if (!keeper)
    return std::move(keeper.error());
  // The first page here, so that a store that cannot be read fails the
  // launch; the dispatcher reads the others.
  auto page = std::max<size_t>(1, cfg.recovery_page);
  auto active = [&]() -> caf::expected<std::vector<operation>> {
    if (!*keeper)
      return st->load_active_page(std::nullopt, page);
    auto got = (*keeper)->claim_share(0);
    if (!got)
      return std::move(got.error());
    return std::move(got->ops);
  }();
  if (!active)
    return make_error(errc::store_failure,
                      "recovery: cannot load the active operations: " + message_of(active.error()));
  auto rt = std::make_shared<runtime>();
  rt->cfg = cfg;
  // Below passivate_after, so that an operation read back early arms its
  // own timer rather than passivating again.
  rt->cfg.wake_lead = std::min(cfg.wake_lead, cfg.passivate_after / 2);
  rt->cfg.dispatch_lead = std::min(cfg.dispatch_lead, rt->cfg.wake_lead / 2);
  rt->workflows = std::move(workflows);
  // Before the limits below, which workflows defined as data take part in.
  auto broker = sys.spawn(task_broker, rt);
  rt->task_watcher = caf::actor_cast<watcher_actor>(broker);
  rt->tasks = caf::actor_cast<tasks_actor>(broker);
  if (auto n = load_definitions(*st, rt->workflows, caf::actor_cast<caf::actor>(broker), cfg.log);
      !n) {
    caf::anon_send_exit(broker, caf::exit_reason::user_shutdown);
    return make_error(errc::store_failure,
                      "cannot read the workflows defined as data: " + message_of(n.error()));
  }
  std::set<std::string> admitted;
  for (auto& wf : rt->workflows.all()) {
    if (wf->max_in_progress() > 0)
      rt->limits[wf->name()] = wf->max_in_progress();
    if (wf->serialized())
      admitted.insert(wf->name());
  }
  for (auto& [name, n] : cfg.limits)
    rt->limits[name] = n;
  warn_plaintext_secrets(cfg, rt->workflows);
  for (auto& kv : rt->limits)
    admitted.insert(kv.first);
  rt->admitted_workflows = std::make_shared<const std::set<std::string>>(std::move(admitted));
  rt->store = std::move(st);
  rt->clk = std::move(clk);
  rt->started_at = rt->clk->now();
  rt->node = node;
  bool threads = how == drive::threads;
  rt->step_pool = threads ? std::make_shared<worker_pool>("sw-step", cfg.step_workers)
                          : std::make_shared<worker_pool>("sw-step", worker_pool::by_hand_t{});
  for (size_t i = 0; i < std::max<size_t>(1, cfg.read_workers); ++i)
    rt->readers.push_back(threads ? sys.spawn<caf::detached>(serve_reads, rt)
                                  : sys.spawn(serve_reads, rt));
  // The fanout holds the listeners (and drops each that terminates).
  rt->fanout = sys.spawn(event_fanout, std::exchange(rt->cfg.listeners, {}));
  auto a = sys.spawn(dispatcher, rt);
  rt->children = sys.spawn(children_keeper, rt, a);
  rt->lease = *keeper;
  if (rt->lease) {
    rt->stats.operations_claimed.fetch_add(active->size(), std::memory_order_relaxed);
    rt->stats.leader.store(rt->lease->leads() ? 1 : 0, std::memory_order_relaxed);
  }
  commit_writer::options wopts;
  wopts.max_batch = cfg.max_batch;
  wopts.linger = cfg.commit_linger;
  wopts.max_backlog = cfg.max_backlog;
  wopts.log = cfg.log;
  wopts.threads = threads;
  rt->writer = std::make_unique<commit_writer>(rt->store, writer_outputs{rt->fanout, a}, rt->stats,
                                               rt->clk, std::move(wopts), rt->lease);
  rt->writer->enable_admission(rt->limits);
  if (!rt->admitted()->empty())
    start_admission_keeper(sys, rt);
  rt->schedules = sys.spawn(schedule_keeper, rt, a);
  // Sent once the handle is in the runtime (see schedule_keeper).
  caf::anon_send(rt->schedules, schedule_refresh_atom::value);
  if (rt->lease)
    rt->router =
      std::make_shared<notice_router>(a, rt->children, rt->schedules, rt->lease, rt->stats,
                                      [w = rt->writer.get()] { w->claim_soon(); });
  if (rt->router && rt->store->definitions() != nullptr)
    // On a worker: reading the store blocks. Weak: the router is the
    // runtime's.
    rt->router->on_workflows([&sys, w = std::weak_ptr<runtime>{rt}] {
      if (auto rt = w.lock())
        rt->step_pool->submit([&sys, w] {
          if (auto rt = w.lock())
            if (auto n = refresh_definitions(sys, rt); !n)
              write_log(rt->cfg.log, log_level::warn,
                        "cannot read the workflows defined as data again (the next change "
                        "notified tries again): "
                          + message_of(n.error()));
        });
    });
  if (rt->lease && threads)
    if (auto l = rt->store->listen({commands_channel, applied_channel, balance_channel,
                                    child_ended_channel, events_channel, schedules_channel,
                                    workflows_channel}))
      // The pump stops before the writer (runtime::stop).
      rt->notices = std::make_unique<notice_pump>(std::move(l), rt->router, rt->cfg.log);
  // Only with retention on: a host's tests on a virtual clock see no timer
  // of it otherwise (/metrics reads the size and horizon itself).
  if (rt->store->retention() != nullptr && cfg.retention > duration::zero()) {
    rt->retention = sys.spawn(retention_keeper, rt);
    caf::anon_send(rt->retention, retention_tick_atom::value, uint64_t{0});
  }
  auto first = *keeper ? recovered_ops{std::move(*active), std::nullopt}
                       : recovery_page(std::move(*active), page);
  caf::anon_send(a, recover_atom::value, std::move(first));
  return launched{std::move(rt), std::move(a)};
}

} // namespace stepwise
