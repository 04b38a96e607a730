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
                     std::function<void(T&)> on_answer, std::set<uint8_t> allowed) {
  ask_via<T>(
    world, [](const dispatcher_actor& d) { return d; }, std::move(msg), std::move(what),
    std::move(on_answer), std::move(allowed));
}

template <class T, class... Ts>
void sim_client::ask_keeper(sim_world& world, std::tuple<Ts...> msg, std::string what,
                            std::function<void(T&)> on_answer, std::set<uint8_t> allowed) {
  ask_via<T>(
    world, [k = world.keeper()](const dispatcher_actor&) { return k; }, std::move(msg),
    std::move(what), std::move(on_answer), std::move(allowed));
}

template <class T, class Pick, class... Ts>
void sim_client::ask_via(sim_world& world, Pick pick, std::tuple<Ts...> msg, std::string what,
                         std::function<void(T&)> on_answer, std::set<uint8_t> allowed) {
  if (store_faults_)
    allowed.insert(code(errc::store_failure));
  log_.note("client: " + what);
  world.ask({[this, pick, msg, what, on_answer, allowed](bridge_actor::pointer self,
                                                         const dispatcher_actor& dispatcher) {
    auto request = [&](const auto&... xs) {
      return self->request(pick(dispatcher), caf::infinite, xs...);
    };
    std::apply(request, msg)
      .then(
        [=](T& x) {
          answered_ += 1;
          log_.note("answer: " + what);
          on_answer(x);
        },
        [=](caf::error& err) {
          answered_ += 1;
          log_.note("answer: " + what + ": " + message_of(err));
          log_.check_lazy(allowed.count(code_of(err)) > 0,
                          [&] { return what + " was answered with an error: " + message_of(err); });
        });
  }});
}

} // namespace stepwise::sim
