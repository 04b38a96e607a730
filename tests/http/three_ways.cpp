#include "tests/http/three_ways.hpp"

#include <catch2/catch.hpp>

#include "engine/errc.hpp"
#include "engine/key_ring.hpp"
#include "storage/open_engine.hpp"
#include "http/encode.hpp"
#include "tests/eventually.hpp"
#include "tests/http/fixture.hpp"

namespace stepwise::test::three_ways {

namespace {

template <class T, class Encode>
answer from(caf::expected<T> x, Encode encode) {
  answer a;
  if (x) {
    encode(*x, a);
    return a;
  }
  auto c = code_of(x.error());
  a.code = c != errc{} ? to_string(c) : "not a stepwise error";
  a.message = message_of(x.error());
  return a;
}

answer from(const httplib::Result& r) {
  auto rep = to_reply(r);
  answer a;
  a.status = rep.status;
  a.fresh = rep.status == 201 || rep.status == 202;
  if (rep.status >= 200 && rep.status < 300) {
    a.json = rep.json;
    // Only HTTP's answer about one operation counts its children (none
    // here): the other ways have no such field.
    if (auto* kids = a.json.as_object().if_contains("children")) {
      CHECK(*kids == boost::json::object{{"total", 0}});
      a.json.as_object().erase("children");
    }
    return a;
  }
  a.code = rep.status == 0 ? "no answer" : rep.error_code();
  if (rep.status != 0)
    a.message = rep.json.at("error").at("message").as_string().c_str();
  return a;
}

template <class Handle, class Typed, class Http>
answer pick(way how, Handle handle, Typed typed, Http web) {
  return how == way::handle ? handle() : how == way::typed ? typed() : web();
}

void op_json(operation& op, answer& a) {
  a.json = http::to_json(op);
}

} // namespace

const char* name_of(way how) {
  return how == way::handle ? "handle" : how == way::typed ? "typed request" : "HTTP API";
}

way nth_after(way how, size_t n) {
  return every_way[(static_cast<size_t>(how) + n) % 3];
}

world::world(registry workflows) {
  tune_actor_system(cfg);
  cfg.set("scheduler.max-threads", 2);
  cfg.set("logger.console", caf::atom("none"));
  sys = std::make_unique<caf::actor_system>(cfg);
  clk = std::make_shared<virtual_clock>(from_micros(1'800'000'000'000'000));
  engine_config ec;
  ec.store_uri = "sqlite:" + dir.path + "/stepwise.db";
  ec.clock = clk;
  auto key = key_ring::generate("three");
  REQUIRE(key);
  auto ring = key_ring::of({*key});
  REQUIRE(ring);
  ec.secret_keys = std::make_shared<const key_ring>(std::move(*ring));
  auto e = open_engine(*sys, ec, std::move(workflows));
  REQUIRE(e);
  eng = *e;
  srv = std::make_unique<http::server>(*sys, eng, http_fixture::default_config());
  REQUIRE(srv->bind());
  srv->start();
  cli = std::make_unique<httplib::Client>("127.0.0.1", srv->port());
  cli->set_read_timeout(30, 0);
}

world::~world() {
  cli.reset();
  srv->stop();
  eng.shutdown();
  eng = engine{};
  // Pending timers hold the engine's actors.
  clk->forget(*sys);
  auto* gone = sys.get();
  sys.reset();
  clk->ended(gone);
}

answer start(world& w, way how, const start_request& rq) {
  auto encode = [](start_result& r, answer& a) {
    a.json = http::to_json(r.op);
    a.fresh = r.created;
  };
  boost::json::object body{{"workflow", rq.workflow}, {"input", rq.input}};
  if (!rq.idempotency_key.empty())
    body["idempotency_key"] = rq.idempotency_key;
  return pick(
    how, [&] { return from(w.eng.start(rq), encode); },
    [&] { return from(w.ask<start_result>(start_atom::value, rq), encode); },
    [&] { return from(w.cli->Post(ops, boost::json::serialize(body), "application/json")); });
}

answer get(world& w, way how, const std::string& id) {
  return pick(
    how, [&] { return from(w.eng.get(id), op_json); },
    [&] { return from(w.ask<operation>(get_atom::value, id), op_json); },
    [&] { return from(w.cli->Get(ops + "/" + id)); });
}

answer ended(world& w, way how, const std::string& id) {
  return pick(
    how, [&] { return from(w.eng.wait(id, std::chrono::seconds(10)), op_json); },
    [&] { return from(w.ask<operation>(wait_atom::value, id), op_json); },
    [&] { return get(w, how, id); });
}

answer order(world& w, way how, const std::string& id, command cmd) {
  using plain_fn = caf::expected<operation> (engine::*)(const std::string&, const std::string&);
  auto fn = cmd == command::cancel  ? &engine::cancel
            : cmd == command::retry ? static_cast<plain_fn>(&engine::retry)
            : cmd == command::pause ? &engine::pause
                                    : &engine::resume;
  auto path = ops + "/" + id + "/" + std::string{to_string(cmd)};
  return pick(
    how, [&] { return from((w.eng.*fn)(id, "tester"), op_json); },
    [&] {
      return from(w.ask<operation>(command_atom::value, id, command_request{cmd, "tester"}),
                  op_json);
    },
    [&] { return from(w.cli->Post(path, "", "application/json")); });
}

answer signal(world& w, way how, const std::string& id, const signal_request& sig) {
  auto encode = [](signal_result& r, answer& a) {
    a.json = http::to_json(r.op);
    a.fresh = !r.duplicate;
  };
  auto body = sig.payload.as_object();
  body["signal_id"] = sig.signal_id;
  auto path = ops + "/" + id + "/signals/" + sig.name;
  return pick(
    how, [&] { return from(w.eng.signal(id, sig), encode); },
    [&] { return from(w.ask<signal_result>(signal_atom::value, id, sig), encode); },
    [&] { return from(w.cli->Post(path, boost::json::serialize(body), "application/json")); });
}

answer list(world& w, way how, const list_filter& f) {
  auto encode = [](operation_page& p, answer& a) {
    boost::json::value next = nullptr;
    if (!p.next_cursor.empty())
      next = p.next_cursor;
    a.json = boost::json::object{{"items", http::to_json_array(p.items)}, {"next_cursor", next}};
  };
  auto q = ops + "?limit=" + std::to_string(f.limit);
  if (!f.workflow.empty())
    q += "&workflow=" + f.workflow;
  if (f.state)
    q += "&state=" + std::string{to_string(*f.state)};
  if (!f.cursor.empty())
    q += "&cursor=" + f.cursor;
  return pick(
    how, [&] { return from(w.eng.list(f), encode); },
    [&] { return from(w.ask<operation_page>(list_atom::value, f), encode); },
    [&] { return from(w.cli->Get(q)); });
}

answer events(world& w, way how, int64_t after) {
  auto encode = [after](std::vector<event>& evs, answer& a) {
    a.json = boost::json::object{{"items", http::to_json_array(evs)},
                                 {"next_after", evs.empty() ? after : evs.back().seq}};
  };
  auto q = "/api/v1/events?limit=1000&after=" + std::to_string(after);
  return pick(
    how, [&] { return from(w.eng.events(after, 1000), encode); },
    [&] {
      return from(w.ask<std::vector<event>>(events_atom::value, after, uint64_t{1000}), encode);
    },
    [&] { return from(w.cli->Get(q)); });
}

std::array<answer, 3> agree(const std::function<answer(way)>& ask) {
  std::array<answer, 3> out;
  for (auto how : every_way)
    out[static_cast<size_t>(how)] = ask(how);
  for (auto how : {way::typed, way::http}) {
    auto& a = out[static_cast<size_t>(how)];
    INFO("the handle's answer vs the " << name_of(how) << "'s");
    CHECK(a.code == out[0].code);
    CHECK(a.message == out[0].message);
    CHECK(a.json == out[0].json);
  }
  return out;
}

void refused(const std::function<answer(way)>& ask, const std::string& code, int status) {
  auto got = agree(ask);
  CHECK(got[0].code == code);
  CHECK_FALSE(got[0].message.empty());
  CHECK(got[2].status == status);
}

void same_everywhere(world& w, const std::vector<std::string>& ids) {
  for (auto& id : ids)
    REQUIRE(agree([&](way how) { return get(w, how, id); })[0].code.empty());
  // Small pages, so that the cursors are compared too.
  list_filter f;
  f.limit = 2;
  size_t listed = 0;
  for (int page = 0; page < 10; ++page) {
    auto got = agree([&](way how) { return list(w, how, f); })[0];
    REQUIRE(got.code.empty());
    listed += got.json.at("items").as_array().size();
    if (got.json.at("next_cursor").is_null())
      break;
    f.cursor = got.json.at("next_cursor").as_string().c_str();
  }
  CHECK(listed == ids.size());
  // The HTTP API serves the log from its own cache, fed after the commit:
  // a long poll for the newest event returns once the cache has it too.
  auto evs = w.eng.events(0, 100000);
  REQUIRE(evs);
  REQUIRE_FALSE(evs->empty());
  auto last = evs->back().seq;
  auto polled = to_reply(w.cli->Get("/api/v1/events?wait=10&after=" + std::to_string(last - 1)));
  REQUIRE(polled.status == 200);
  REQUIRE(polled.json.at("next_after") == last);
  auto log = agree([&](way how) { return events(w, how, 0); })[0];
  CHECK(log.json.at("items").as_array().size() == evs->size());
}

bool logged(world& w, const std::string& id, event_type type, size_t n) {
  return eventually([&] {
    auto evs = w.eng.events(0, 100000);
    REQUIRE(evs);
    size_t k = 0;
    for (auto& e : *evs)
      k += e.operation_id == id && e.type == type ? 1 : 0;
    return k >= n;
  });
}

boost::json::object state_of(world& w, const std::string& id) {
  auto got = get(w, way::handle, id);
  REQUIRE(got.code.empty());
  return got.json.as_object();
}

} // namespace stepwise::test::three_ways
