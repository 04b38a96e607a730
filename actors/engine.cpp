#include "engine/engine.hpp"

#include <algorithm>
#include <condition_variable>
#include <functional>
#include <mutex>
#include <optional>
#include <set>
#include <thread>
#include <tuple>

#include <caf/actor_system.hpp>
#include <caf/actor_system_config.hpp>
#include <caf/scoped_actor.hpp>
#include <caf/send.hpp>

#include "actors/bridge_calls.hpp"
#include "actors/engine_shared.hpp"
#include "actors/launch.hpp"
#include "actors/messages.hpp"
#include "engine/errc.hpp"
#include "engine/retention_store.hpp"

namespace stepwise {

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
  // Their states hold the runtime: exiting breaks the cycle. The readers'
  // list stays as it is: actors still running (the schedule keeper) pick
  // from it, and a request to an exited reader is answered with an error.
  rt->exit_parts(caf::exit_reason::user_shutdown);
  caf::anon_send_exit(actor, caf::exit_reason::user_shutdown);
}

using namespace bridge_calls;

namespace {

/// Runs each job it gets: a request to the engine on behalf of a thread
/// outside CAF (see `ask`). The argument only keeps CAF's spawn of a
/// function without one from tripping UBSan.
bridge_actor::behavior_type run_bridge(bridge_actor::pointer self, int) {
  return {[=](bridge_job& job) { job.run(self); }};
}

} // namespace

void tune_actor_system(caf::actor_system_config& cfg) {
  cfg.set("scheduler.policy", caf::atom("sharing"));
  // CAF starts at least four workers, for programs whose actors block; the
  // engine's never do (its blocking work has threads of its own), and on
  // two cores the extra workers only hand messages around.
  cfg.set("scheduler.max-threads", size_t{std::max(2U, std::thread::hardware_concurrency())});
  // `sys.render(e)` names a stepwise error's code, as CAF's own. (CAF
  // 0.17.6's add_error_category<T> does not compile: its renderer has the
  // wrong signature.)
  cfg.add_error_category(error_category,
                         [](uint8_t code, caf::atom_value, const caf::message& context) {
                           auto text = "stepwise." + to_string(static_cast<errc>(code));
                           if (context.match_elements<std::string>())
                             text += ": " + context.get_as<std::string>(0);
                           return text;
                         });
}

caf::expected<engine> engine::launch(caf::actor_system& sys, engine_config cfg, registry workflows,
                                     store_ptr st) {
  auto parts =
    launch_runtime(sys, std::move(cfg), std::move(workflows), std::move(st), drive::threads);
  if (!parts)
    return std::move(parts.error());
  auto sh = std::make_shared<shared>();
  sh->rt = parts->rt;
  sh->sys = &sys;
  sh->actor = parts->dispatcher;
  // Hidden: it must not keep the actor system from shutting down, and it
  // lives on after `shutdown` so that a late request fails at once.
  sh->bridge = sys.spawn<caf::hidden>(run_bridge, 0);
  return engine{parts->dispatcher, std::move(sh)};
}

template <class T, class... Ts>
caf::expected<T> engine::ask(duration timeout, Ts&&... xs) const {
  if (!shared_)
    return make_error(errc::invalid_argument,
                      "this engine handle is empty: get one from engine::launch");
  return ask_bridge<T>(shared_->down, shared_->bridge, shared_->actor, timeout,
                       std::forward<Ts>(xs)...);
}

template <class T, class... Ts>
caf::expected<T> engine::ask_schedules(Ts&&... xs) const {
  if (!shared_)
    return make_error(errc::invalid_argument,
                      "this engine handle is empty: get one from engine::launch");
  if (!shared_->rt->schedules)
    return make_error(errc::shutting_down, "the engine keeps no schedules (shut down)");
  return ask_bridge<T>(shared_->down, shared_->bridge, shared_->rt->schedules,
                       shared_->rt->cfg.request_timeout, std::forward<Ts>(xs)...);
}

duration engine::request_timeout() const {
  return shared_ ? shared_->rt->cfg.request_timeout : duration{0};
}

caf::expected<start_result> engine::start(const start_request& req) {
  return ask<start_result>(request_timeout(), start_atom::value, req);
}

void engine::start(const start_request& req,
                   std::function<void(caf::expected<start_result>)> done) {
  if (!shared_) {
    done(make_error(errc::invalid_argument,
                    "this engine handle is empty: get one from engine::launch"));
    return;
  }
  tell_bridge<start_result>(shared_->down, shared_->bridge, shared_->actor, request_timeout(),
                            std::move(done), start_atom::value, req);
}

caf::expected<operation> engine::get(const std::string& id) {
  return ask<operation>(request_timeout(), get_atom::value, id);
}

caf::expected<operation> engine::cancel(const std::string& id, const std::string& by) {
  return apply(id, command_request::cancel().asked_by(by));
}

caf::expected<operation> engine::retry(const std::string& id, const std::string& by) {
  return apply(id, command_request::retry().asked_by(by));
}

caf::expected<operation> engine::pause(const std::string& id, const std::string& by) {
  return apply(id, command_request::pause().asked_by(by));
}

caf::expected<operation> engine::resume(const std::string& id, const std::string& by) {
  return apply(id, command_request::resume().asked_by(by));
}

caf::expected<operation> engine::retry(const std::string& id, retry_options opts) {
  return apply(id, command_request::retry(std::move(opts)));
}

caf::expected<operation> engine::skip(const std::string& id, std::string step, std::string reason) {
  return apply(id, command_request::skip(std::move(step), std::move(reason)));
}

caf::expected<operation> engine::apply(const std::string& id, command_request req) {
  return ask<operation>(request_timeout(), command_atom::value, id, std::move(req));
}

caf::expected<signal_result> engine::signal(const std::string& id, signal_request sig) {
  return ask<signal_result>(request_timeout(), signal_atom::value, id, std::move(sig));
}

caf::expected<operation_page> engine::list(const list_filter& f) {
  return ask<operation_page>(request_timeout(), list_atom::value, f);
}

caf::expected<boost::json::object> engine::count_children(const std::string& id) {
  list_filter f;
  f.parent = id;
  f.limit = SIZE_MAX; // the dispatcher's page size
  std::vector<operation> all;
  for (;;) {
    auto page = list(f);
    if (!page)
      return std::move(page.error());
    for (auto& op : page->items)
      all.push_back(std::move(op));
    if (page->next_cursor.empty())
      return children_counts(all);
    f.cursor = std::move(page->next_cursor);
  }
}

caf::expected<std::vector<event>> engine::events(int64_t after, size_t limit) {
  return ask<std::vector<event>>(request_timeout(), events_atom::value, after,
                                 static_cast<uint64_t>(limit));
}

caf::expected<std::vector<event>> engine::operation_events(const std::string& id, int64_t after,
                                                           size_t limit) const {
  return shared_->rt->store->events_of(id, after, limit);
}

caf::expected<int64_t> engine::store_bytes() const {
  auto* ret = shared_->rt->store->retention();
  if (ret == nullptr)
    return int64_t{0};
  return ret->size_bytes();
}

caf::expected<int64_t> engine::event_horizon() const {
  auto* ret = shared_->rt->store->retention();
  if (ret == nullptr)
    return int64_t{0};
  return ret->horizon();
}

caf::expected<operation> engine::wait(const std::string& id, duration timeout) {
  // The dispatcher answers at the deadline itself (nothing stays behind
  // it); the bridge's own limit is only for an engine that does not answer.
  auto limit =
    timeout < duration::max() - request_timeout() ? timeout + request_timeout() : duration::max();
  return ask<operation>(limit, wait_atom::value, id, caf::timespan{timeout});
}

caf::expected<schedule_result> engine::create_schedule(const schedule& s, const std::string& by) {
  return ask_schedules<schedule_result>(schedule_create_atom::value, s, by);
}

caf::expected<schedule_view> engine::replace_schedule(const schedule& s, const std::string& by) {
  return ask_schedules<schedule_view>(schedule_replace_atom::value, s, by);
}

caf::expected<schedule_view> engine::get_schedule(const std::string& id) {
  return ask_schedules<schedule_view>(schedule_get_atom::value, id);
}

caf::expected<std::vector<schedule_view>> engine::list_schedules() {
  return ask_schedules<std::vector<schedule_view>>(schedule_list_atom::value);
}

caf::expected<schedule_view> engine::delete_schedule(const std::string& id, const std::string& by) {
  return ask_schedules<schedule_view>(schedule_delete_atom::value, id, by);
}

caf::expected<schedule_view> engine::pause_schedule(const std::string& id, bool paused,
                                                    const std::string& by) {
  return ask_schedules<schedule_view>(schedule_pause_atom::value, id, paused, by);
}

caf::expected<start_result> engine::trigger_schedule(const std::string& id, const std::string& by) {
  return ask_schedules<start_result>(schedule_trigger_atom::value, id, by);
}

schedules_actor engine::schedules() const {
  return shared_ ? caf::actor_cast<schedules_actor>(shared_->rt->schedules) : schedules_actor{};
}

void engine::subscribe(const event_listener& listener) {
  caf::anon_send(dispatcher_, subscribe_atom::value, listener);
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

caf::expected<cluster_view> engine::cluster() {
  return ask<cluster_view>(request_timeout(), cluster_atom::value);
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

void engine::drain() {
  if (shared_)
    shared_->rt->draining = true;
}

bool engine::draining() const {
  return shared_ && shared_->rt->draining;
}

int64_t engine::attempts_running() const {
  return shared_ ? shared_->rt->stats.attempts_running.load(std::memory_order_relaxed) : 0;
}

std::string engine::not_ready_reason() const {
  auto& rt = *shared_->rt;
  if (shared_->down || rt.draining)
    return "the engine is shutting down";
  if (!rt.recovered)
    return "recovery is not done";
  if (auto why = rt.writer->fault(); !why.empty())
    return "the store fails: " + why;
  // A process whose lease may have expired begins no step: not ready.
  if (rt.lease && !rt.lease->holds())
    return "the lease on the shared store is not renewed";
  return {};
}

} // namespace stepwise
