#pragma once

#include <array>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include <boost/json.hpp>
#include <caf/actor_system.hpp>
#include <caf/actor_system_config.hpp>
#include <caf/scoped_actor.hpp>
#include <httplib.h>

#include "actors/virtual_clock.hpp"
#include "engine/engine.hpp"
#include "http/server.hpp"
#include "tests/shell.hpp"

/// The three ways into one engine (the blocking handle, a typed request to
/// its dispatcher, the HTTP API) behind one set of functions that answer in
/// one form, so that a test asks the same of each and compares.
namespace stepwise::test::three_ways {

enum class way { handle, typed, http };

inline constexpr way every_way[] = {way::handle, way::typed, way::http};

const char* name_of(way how);

/// Returns the way `n` places after `how` (in a cycle), so that a test
/// sends each operation's commands through another door than its start.
way nth_after(way how, size_t n);

/// One engine on SQLite (so that the HTTP API serves the event log from its
/// own cache, and secrets are sealed in the store) and a virtual clock, with
/// the HTTP API in front of it on a free port of 127.0.0.1.
struct world {
  temp_dir dir;
  caf::actor_system_config cfg;
  std::unique_ptr<caf::actor_system> sys;
  std::shared_ptr<virtual_clock> clk;
  engine eng;
  std::unique_ptr<http::server> srv;
  std::unique_ptr<httplib::Client> cli;

  explicit world(registry workflows);
  ~world();

  /// Sends a typed request to the dispatcher from a scoped actor and waits
  /// (at most 10 s) for its answer.
  template <class T, class... Ts>
  caf::expected<T> ask(Ts&&... xs) {
    caf::scoped_actor self{*sys};
    std::optional<caf::expected<T>> out;
    self->request(eng.dispatcher(), std::chrono::seconds(10), std::forward<Ts>(xs)...)
      .receive([&](T& x) { out.emplace(std::move(x)); },
               [&](caf::error& err) { out.emplace(std::move(err)); });
    return std::move(*out);
  }
};

/// One answer in the common form: the JSON the API prints (the handle's and
/// the typed request's through http/encode.hpp), or the error's code and
/// message (`code` empty on success).
struct answer {
  /// HTTP only.
  int status = 0;
  /// A start that created, a signal that was new (over HTTP: 201 or 202).
  bool fresh = false;
  std::string code;
  std::string message;
  boost::json::value json;
};

// -- one request through one way ----------------------------------------------

answer start(world& w, way how, const start_request& rq);

answer get(world& w, way how, const std::string& id);

/// The operation once it has ended: the handle (`engine::wait`) and the
/// typed request (`wait_atom`) wait for it; HTTP, which has no wait, reads
/// it.
answer ended(world& w, way how, const std::string& id);

/// Cancel, retry, pause or resume.
answer order(world& w, way how, const std::string& id, command cmd);

answer signal(world& w, way how, const std::string& id, const signal_request& sig);

answer list(world& w, way how, const list_filter& f);

/// At most 1000 events after `after`.
answer events(world& w, way how, int64_t after);

// -- the same request through all three ---------------------------------------

/// Asks the same of all three ways (indexed by `way`); fails the test unless
/// they give the same answer.
std::array<answer, 3> agree(const std::function<answer(way)>& ask);

/// Fails the test unless all three refuse with `code`, HTTP with `status`.
void refused(const std::function<answer(way)>& ask, const std::string& code, int status);

/// Reads every operation (`ids`, all there are), the list page by page and
/// the whole event log through all three ways. Only meaningful at rest
/// (nothing due, nothing running): then a difference is a disagreement,
/// not a race.
void same_everywhere(world& w, const std::vector<std::string>& ids);

/// Waits (bounded) until the store's log holds `n` events of `type` of
/// operation `id`.
bool logged(world& w, const std::string& id, event_type type, size_t n = 1);

/// Returns the operation as the handle reads it, in the API's form.
boost::json::object state_of(world& w, const std::string& id);

} // namespace stepwise::test::three_ways
