#include "engine/engine.hpp"

#include <algorithm>
#include <condition_variable>
#include <functional>
#include <mutex>
#include <optional>
#include <set>

#include <caf/actor_system.hpp>
#include <caf/actor_system_config.hpp>
#include <caf/scoped_actor.hpp>
#include <caf/send.hpp>

#include "actors/dispatcher.hpp"
#include "actors/lease_keeper.hpp"
#include "actors/messages.hpp"
#include "actors/real_clock.hpp"
#include "actors/reader_actor.hpp"
#include "engine/errc.hpp"
#include "storage/open_store.hpp"

namespace stepwise {

/// What all copies of an engine handle share; the last one shuts it down.
struct engine::shared {
  runtime_ptr rt;
  caf::actor_system* sys = nullptr;
  caf::actor actor;
  /// Carries the requests of threads outside CAF (`ask`).
  caf::actor bridge;
  std::atomic<bool> down{false};

  void shutdown();

  ~shared() {
    shutdown();
  }
};

void engine::shared::shutdown() {
  if (down.exchange(true))
    return;
  {
    caf::scoped_actor self{*sys};
    self->request(actor, std::chrono::seconds(10), shutdown_atom::value)
      .receive([] {},
               [this](caf::error& err) {
                 // Shutting down goes on: the writer still drains below.
                 write_log(rt->cfg.log, log_level::warn,
                           "the engine did not confirm shutdown: " + message_of(err));
               });
  }
  // Running steps finish (their results may be dropped: they run again
  // after a restart); every checkpoint already queued is written.
  rt->stop();
  for (auto& r : rt->readers)
    caf::anon_send_exit(r, caf::exit_reason::user_shutdown);
  rt->readers.clear();
  caf::anon_send_exit(actor, caf::exit_reason::user_shutdown);
}

namespace {

/// Holds the answer to one `ask` until the asking thread takes it.
template <class T>
struct reply_slot {
  std::mutex mtx;
  std::condition_variable cv;
  std::optional<caf::expected<T>> value;

  void set(caf::expected<T> x) {
    {
      std::lock_guard<std::mutex> guard{mtx};
      value = std::move(x);
    }
    cv.notify_one();
  }
};

/// Sends a request to the engine through the bridge and waits (at most
/// `timeout`) for the answer. Cheaper than a `scoped_actor` per call, which
/// spawns an actor and arms a CAF timer thread wake-up for every request:
/// the HTTP gateway calls this once per request.
template <class T, class... Ts>
caf::expected<T> ask_bridge(const std::atomic<bool>& down, const caf::actor& bridge,
                            duration timeout, Ts&&... xs) {
  if (down)
    return make_error(errc::shutting_down, "the engine is shut down");
  auto slot = std::make_shared<reply_slot<T>>();
  auto msg = caf::make_message(std::forward<Ts>(xs)...);
  caf::anon_send(bridge, bridge_job{[slot, msg](caf::event_based_actor* self,
                                                const caf::actor& engine) {
    self->request(engine, caf::infinite, msg)
      .then([slot](T& x) { slot->set(std::move(x)); },
            [slot](caf::error& e) { slot->set(std::move(e)); });
  }});
  std::unique_lock<std::mutex> guard{slot->mtx};
  if (!slot->cv.wait_for(guard, timeout, [&] { return slot->value.has_value(); }))
    return make_error(errc::timeout,
                      "the engine did not answer within "
                        + std::to_string(timeout.count() / 1000) + " ms");
  return std::move(*slot->value);
}

/// Runs each job it gets: a request to `engine` on behalf of a thread
/// outside CAF (see `ask`).
caf::behavior bridge_actor(caf::event_based_actor* self, caf::actor dispatcher) {
  return {[=](bridge_job& job) { job(self, dispatcher); }};
}

/// Returns a joined lease keeper when the store is shared by processes,
/// null when it serves this process alone.
caf::expected<std::shared_ptr<lease_keeper>> make_keeper(const engine_config& cfg,
                                                         store& st) {
  auto* leases = dynamic_cast<lease_store*>(&st);
  if (!leases)
    return std::shared_ptr<lease_keeper>{};
  // Claims run every ttl / 3: a tiny ttl would turn the writer into a
  // busy loop of claims.
  if (cfg.lease_ttl < std::chrono::milliseconds(100))
    return make_error(errc::invalid_argument,
                      "lease_ttl must be at least 100 ms");
  auto keeper = std::make_shared<lease_keeper>(*leases, cfg.lease_ttl,
                                               cfg.claim_batch);
  if (auto err = keeper->join())
    return make_error(errc::store_failure,
                      "recovery: cannot join the store's leases: "
                        + message_of(err));
  return keeper;
}

} // namespace

void tune_actor_system(caf::actor_system_config& cfg) {
  cfg.set("scheduler.policy", caf::atom("sharing"));
}

namespace {

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

caf::expected<engine> engine::launch(caf::actor_system& sys, engine_config cfg,
                                     registry workflows, store_ptr st) {
  if (!st)
    return make_error(errc::invalid_argument, "no store given");
  auto keeper = make_keeper(cfg, *st);
  if (!keeper)
    return std::move(keeper.error());
  // The first page here, so that a store that cannot be read fails the
  // launch; the dispatcher reads the others.
  auto page = std::max<size_t>(1, cfg.recovery_page);
  auto active = *keeper ? (*keeper)->claim_all() : st->load_active_page(std::nullopt, page);
  if (!active)
    return make_error(errc::store_failure,
                      "recovery: cannot load the active operations: "
                        + message_of(active.error()));
  auto rt = std::make_shared<runtime>();
  rt->cfg = cfg;
  // Below passivate_after, so that an operation read back early arms its
  // own timer rather than passivating again.
  rt->cfg.wake_lead = std::min(cfg.wake_lead, cfg.passivate_after / 2);
  rt->cfg.dispatch_lead = std::min(cfg.dispatch_lead, rt->cfg.wake_lead / 2);
  rt->workflows = std::move(workflows);
  for (auto& wf : rt->workflows.all()) {
    if (wf->max_in_progress() > 0)
      rt->limits[wf->name()] = wf->max_in_progress();
    if (wf->serialized())
      rt->admitted_workflows.insert(wf->name());
  }
  for (auto& [name, n] : cfg.limits)
    rt->limits[name] = n;
  warn_plaintext_secrets(cfg, rt->workflows);
  for (auto& kv : rt->limits)
    rt->admitted_workflows.insert(kv.first);
  rt->store = std::move(st);
  rt->clk = cfg.clock ? cfg.clock : std::make_shared<real_clock>(sys);
  rt->step_pool = std::make_shared<worker_pool>("sw-step", cfg.step_workers);
  for (size_t i = 0; i < std::max<size_t>(1, cfg.read_workers); ++i)
    rt->readers.push_back(sys.spawn<caf::detached>(reader_actor, rt));
  auto a = sys.spawn(dispatcher, rt);
  rt->lease = *keeper;
  if (rt->lease)
    rt->stats.operations_claimed.fetch_add(active->size(),
                                             std::memory_order_relaxed);
  commit_writer::options wopts;
  wopts.max_batch = cfg.max_batch;
  wopts.max_backlog = cfg.max_backlog;
  wopts.log = cfg.log;
  rt->writer = std::make_unique<commit_writer>(rt->store, a, rt->stats,
                                                 std::move(wopts), rt->lease);
  rt->writer->enable_admission(rt->limits, rt->clk);
  auto first = *keeper ? recovered_ops{std::move(*active), std::nullopt}
                       : recovery_page(std::move(*active), page);
  caf::anon_send(a, recover_atom::value, std::move(first));
  auto sh = std::make_shared<shared>();
  sh->rt = rt;
  sh->sys = &sys;
  sh->actor = a;
  // Hidden: it must not keep the actor system from shutting down, and it
  // lives on after `shutdown` so that a late request fails at once.
  sh->bridge = sys.spawn<caf::hidden>(bridge_actor, a);
  return engine{&sys, a, std::move(sh)};
}

template <class T, class... Ts>
caf::expected<T> engine::ask(duration timeout, Ts&&... xs) const {
  if (!shared_)
    return make_error(errc::invalid_argument,
                      "this engine handle is empty: get one from engine::launch");
  return ask_bridge<T>(shared_->down, shared_->bridge, timeout, std::forward<Ts>(xs)...);
}

duration engine::request_timeout() const {
  return shared_ ? shared_->rt->cfg.request_timeout : duration{0};
}

caf::expected<engine> engine::launch(caf::actor_system& sys, engine_config cfg,
                                     registry workflows) {
  auto st = open_store(cfg.store_uri);
  if (!st)
    return st.error();
  return launch(sys, std::move(cfg), std::move(workflows), std::move(*st));
}

caf::expected<start_result> engine::start(const start_request& req) {
  return ask<start_result>(request_timeout(), start_atom::value, req);
}

caf::expected<operation> engine::get(const std::string& id) {
  return ask<operation>(request_timeout(), get_atom::value, id);
}

caf::expected<operation> engine::cancel(const std::string& id) {
  return ask<operation>(request_timeout(), command_atom::value, id, command::cancel);
}

caf::expected<operation> engine::retry(const std::string& id) {
  return ask<operation>(request_timeout(), command_atom::value, id, command::retry);
}

caf::expected<operation> engine::pause(const std::string& id) {
  return ask<operation>(request_timeout(), command_atom::value, id, command::pause);
}

caf::expected<operation> engine::resume(const std::string& id) {
  return ask<operation>(request_timeout(), command_atom::value, id, command::resume);
}

caf::expected<signal_result> engine::signal(const std::string& id, signal_request sig) {
  return ask<signal_result>(request_timeout(), signal_atom::value, id, std::move(sig));
}

caf::expected<operation_page> engine::list(const list_filter& f) {
  return ask<operation_page>(request_timeout(), list_atom::value, f);
}

caf::expected<std::vector<event>> engine::events(int64_t after, size_t limit) {
  return ask<std::vector<event>>(request_timeout(), events_atom::value, after,
                                 static_cast<uint64_t>(limit));
}

caf::expected<operation> engine::wait(const std::string& id, duration timeout) {
  auto res = ask<operation>(timeout, wait_atom::value, id);
  if (!res && code_of(res.error()) == static_cast<uint8_t>(errc::timeout))
    return get(id);
  return res;
}

void engine::subscribe(const caf::actor& listener) {
  caf::anon_send(actor_, subscribe_atom::value, listener);
}

void engine::shutdown() {
  if (shared_)
    shared_->shutdown();
}

const registry& engine::workflows() const {
  return shared_->rt->workflows;
}

stepwise::clock& engine::clock() const {
  return *shared_->rt->clk;
}

std::map<std::string, admission_counts> engine::admission() const {
  if (!shared_)
    return {};
  std::lock_guard<std::mutex> guard{shared_->rt->counts_mtx};
  return shared_->rt->counts;
}

const stepwise::metrics& engine::stats() const {
  return shared_->rt->stats;
}

std::string engine::owner() const {
  auto& lease = shared_->rt->lease;
  return lease ? lease->owner() : std::string{};
}

std::string engine::store_backend() const {
  return shared_->rt->store->backend();
}

size_t engine::commit_backlog() const {
  return shared_->rt->writer->backlog();
}

bool engine::ready() const {
  return not_ready_reason().empty();
}

std::string engine::not_ready_reason() const {
  auto& rt = *shared_->rt;
  if (shared_->down)
    return "the engine is shutting down";
  if (!rt.recovered)
    return "recovery is not done";
  if (auto why = rt.writer->fault(); !why.empty())
    return "the store fails: " + why;
  // A process whose lease may have expired begins no step: not ready.
  if (rt.lease && !rt.lease->holds(std::chrono::steady_clock::now()))
    return "the lease on the shared store is not renewed";
  return {};
}

} // namespace stepwise
