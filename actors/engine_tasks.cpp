// The embedding API's task calls: each is one request to the task broker
// (actors/task_broker.hpp).
#include "actors/bridge_calls.hpp"
#include "actors/engine_shared.hpp"

namespace stepwise {

using namespace bridge_calls;

template <class T, class... Ts>
caf::expected<T> engine::ask_tasks(duration extra, Ts&&... xs) const {
  if (!shared_)
    return make_error(errc::invalid_argument,
                      "this engine handle is empty: get one from engine::launch");
  return ask_bridge<T>(shared_->down, shared_->bridge, shared_->rt->tasks,
                       shared_->rt->cfg.request_timeout + extra, std::forward<Ts>(xs)...);
}

template <class T, class... Ts>
void engine::tell_tasks(std::function<void(caf::expected<T>)> done, Ts&&... xs) const {
  if (!shared_) {
    done(make_error(errc::invalid_argument,
                    "this engine handle is empty: get one from engine::launch"));
    return;
  }
  if (shared_->down) {
    done(make_error(errc::shutting_down, "the engine is shut down"));
    return;
  }
  // No timeout: the broker answers every call at once (a poll when its
  // wait is over), and a timeout would cost every call a timer on CAF's
  // clock thread; a broker gone answers with an error.
  via_bridge<T>(shared_->bridge, shared_->rt->tasks, std::nullopt, std::move(done),
                std::forward<Ts>(xs)...);
}

void engine::poll_tasks(const task_poll& p,
                        std::function<void(caf::expected<std::vector<task_lease>>)> done) {
  tell_tasks<std::vector<task_lease>>(std::move(done), task_poll_atom::value, p);
}

void engine::heartbeat_task(const task_beat& b,
                            std::function<void(caf::expected<task_beat_result>)> done) {
  tell_tasks<task_beat_result>(std::move(done), task_beat_atom::value, b);
}

void engine::answer_task(const task_answer& a, std::function<void(caf::expected<void>)> done) {
  tell_tasks<bool>(
    [done = std::move(done)](caf::expected<bool> got) {
      if (!got)
        done(std::move(got.error()));
      else
        done({});
    },
    task_answer_atom::value, a);
}

caf::expected<std::vector<task_lease>> engine::poll_tasks(const task_poll& p) {
  return ask_tasks<std::vector<task_lease>>(p.wait, task_poll_atom::value, p);
}

caf::expected<task_beat_result> engine::heartbeat_task(const task_beat& b) {
  return ask_tasks<task_beat_result>(duration{0}, task_beat_atom::value, b);
}

caf::expected<void> engine::answer_task(const task_answer& a) {
  auto got = ask_tasks<bool>(duration{0}, task_answer_atom::value, a);
  if (!got)
    return std::move(got.error());
  return {};
}

caf::expected<std::vector<task_queue_view>> engine::task_queues() {
  return ask_tasks<std::vector<task_queue_view>>(duration{0}, task_queues_atom::value);
}

tasks_actor engine::tasks() const {
  return shared_ ? shared_->rt->tasks : tasks_actor{};
}

} // namespace stepwise
