#pragma once

// The client's requests: made by the client actor, answered and checked
// (included by the files that make requests).
#include "engine/errc.hpp"
#include "tests/simulation/sim_client.hpp"

namespace stepwise::sim {

inline uint8_t code(errc x) {
  return static_cast<uint8_t>(x);
}

template <class T, class... Ts>
void sim_client::ask(sim_world& world, std::tuple<Ts...> msg, std::string what,
                     std::function<void(T&)> on_answer, std::set<uint8_t> allowed,
                     std::string about) {
  ask_via<T>(
    world, [](const dispatcher_actor& d) { return d; }, std::move(msg), std::move(what),
    std::move(on_answer), std::move(allowed), std::move(about));
}

template <class T, class... Ts>
void sim_client::ask_keeper(sim_world& world, std::tuple<Ts...> msg, std::string what,
                            std::function<void(T&)> on_answer, std::set<uint8_t> allowed,
                            std::function<void()> answered) {
  ask_via<T>(
    world, [k = world.keeper()](const dispatcher_actor&) { return k; }, std::move(msg),
    std::move(what), std::move(on_answer), std::move(allowed), std::string{}, std::move(answered));
}

template <class T, class Pick, class... Ts>
void sim_client::ask_via(sim_world& world, Pick pick, std::tuple<Ts...> msg, std::string what,
                         std::function<void(T&)> on_answer, std::set<uint8_t> allowed,
                         std::string about, std::function<void()> answered) {
  // A request only a drain's refusal may answer (a start sent while
  // draining) is refused before the store is touched.
  if (store_faults_ && allowed != std::set<uint8_t>{code(errc::shutting_down)})
    allowed.insert(code(errc::store_failure));
  if (leases && allowed != std::set<uint8_t>{code(errc::shutting_down)})
    allowed.insert(code(errc::stale_revision));
  log_.note("client: " + what);
  world.ask({[this, pick, msg, what, on_answer, allowed, about,
              answered](bridge_actor::pointer self, const dispatcher_actor& dispatcher) {
    auto request = [&](const auto&... xs) {
      return self->request(pick(dispatcher), caf::infinite, xs...);
    };
    std::apply(request, msg)
      .then(
        [=](T& x) {
          answered_ += 1;
          log_.note("answer: " + what);
          on_answer(x);
          if (answered)
            answered();
        },
        [=](caf::error& err) {
          answered_ += 1;
          log_.note("answer: " + what + ": " + message_of(err));
          if (answered)
            answered();
          // Only a draining process refuses as it shuts down: a start
          // sent just before the drain reaches it after.
          auto c = static_cast<uint8_t>(code_of(err));
          bool ok = allowed.count(c) > 0 && (c != code(errc::shutting_down) || drained);
          // Removed by a purge since it was sent: not found, or (a change
          // read before the purge and written after it) refused as stale.
          ok = ok
               || ((c == code(errc::not_found) || c == code(errc::stale_revision)) && !about.empty()
                   && store_.removed(about));
          log_.check_lazy(ok,
                          [&] { return what + " was answered with an error: " + message_of(err); });
        });
  }});
}

} // namespace stepwise::sim
