// PostgreSQL-only store tests: what the shared suite cannot see through the
// store interface (migrations, large pipelined batches, event order with
// several writer processes, lost connections).

#include <atomic>
#include <mutex>
#include <set>
#include <thread>

#include <catch2/catch.hpp>

#include "storage/pg_commit.hpp"
#include "storage/pg_connection.hpp"
#include "storage/pg_migrations.hpp"
#include "storage/pg_statements.hpp"
#include "tests/storage/pg_test_schema.hpp"
#include "tests/storage/store_fixtures.hpp"

using namespace stepwise;
using namespace stepwise::test;

TEST_CASE("pg: processes starting at once migrate once", "[storage][pg]") {
  auto schema = pg_schema_or_skip();
  if (!schema)
    return;
  std::vector<std::shared_ptr<pg_store>> stores(4);
  std::vector<std::string> errors(stores.size());
  std::vector<std::thread> threads;
  for (size_t i = 0; i < stores.size(); ++i)
    threads.emplace_back([&, i] {
      auto st = pg_store::open(schema->uri());
      if (st)
        stores[i] = std::move(*st);
      else
        errors[i] = message_of(st.error());
    });
  for (auto& t : threads)
    t.join();
  for (auto& e : errors)
    CHECK(e.empty());
  CHECK(schema->admin("SELECT count(*) FROM " + schema->name() + ".schema_migrations")
        == std::to_string(pg_schema_version()));
  commit_ok(*stores[0], {create(make_op("a"))});
  CHECK(load_ok(*stores[3], "a").id == "a");
}

TEST_CASE("pg: a newer schema than the build knows is refused", "[storage][pg]") {
  auto schema = pg_schema_or_skip();
  if (!schema)
    return;
  schema->open().reset();
  schema->admin("INSERT INTO " + schema->name() + ".schema_migrations VALUES (9999, 'future', 0)");
  auto st = pg_store::open(schema->uri());
  REQUIRE_FALSE(st);
  CHECK(code_of(st.error()) == errc::store_failure);
  CHECK_THAT(message_of(st.error()), Catch::Contains("knows up to"));
}

TEST_CASE("pg: a batch larger than the socket buffers commits", "[storage][pg]") {
  auto schema = pg_schema_or_skip();
  if (!schema)
    return;
  auto st = schema->open();
  // 8192 items of ~2 kB: megabytes each way, so statements and results
  // must flow at the same time (a blocking pipeline would deadlock here).
  std::vector<checkpoint> batch;
  for (int i = 0; i < 8192; ++i) {
    auto op = make_op("op-" + std::to_string(i), i);
    op.data["pad"] = std::string(2000, 'p');
    batch.push_back(create(op, {make_event(op.id, event_type::operation_created)}));
  }
  // A duplicate in the middle does not stop the others.
  batch.push_back(create(make_op("op-17")));
  auto res = commit_ok(*st, batch);
  CHECK(res.status.back() == write_status::duplicate_key);
  CHECK(res.events.size() == 8192);
  CHECK(res.events.back().seq == 8192);
  CHECK(last_seq_ok(*st) == 8192);
  CHECK(load_ok(*st, "op-8191").data.at("pad").as_string().size() == 2000);
}

TEST_CASE("pg: readers never skip an event while processes commit at once", "[storage][pg]") {
  auto schema = pg_schema_or_skip();
  if (!schema)
    return;
  constexpr int writers = 3;
  constexpr int commits = 150;
  std::vector<std::shared_ptr<pg_store>> stores;
  for (int w = 0; w < writers; ++w)
    stores.push_back(schema->open());
  auto reader = schema->open();
  std::atomic<bool> done{false};
  std::vector<std::thread> threads;
  for (int w = 0; w < writers; ++w)
    threads.emplace_back([&, w] {
      for (int i = 0; i < commits; ++i) {
        auto id = "w" + std::to_string(w) + "-" + std::to_string(i);
        // Uneven batches make transactions of different lengths overlap.
        std::vector<event> evs(1 + (i % 4), make_event(id, event_type::step_started));
        auto res = stores[static_cast<size_t>(w)]->commit({create(make_op(id), evs)});
        if (!res)
          FAIL_CHECK("commit failed: " << message_of(res.error()));
      }
    });
  // Tail the log as a consumer would: from the last seq seen. An event
  // committed later with a lower seq would be skipped for good.
  std::vector<int64_t> seen;
  int64_t after = 0;
  auto poll = [&] {
    auto evs = reader->events_after(after, 1000);
    REQUIRE(evs);
    for (auto& ev : *evs) {
      seen.push_back(ev.seq);
      after = ev.seq;
    }
  };
  std::thread tail{[&] {
    while (!done)
      poll();
  }};
  for (auto& t : threads)
    t.join();
  done = true;
  tail.join();
  poll();
  auto total = last_seq_ok(*reader);
  REQUIRE(static_cast<int64_t>(seen.size()) == total);
  for (size_t i = 0; i < seen.size(); ++i)
    REQUIRE(seen[i] == static_cast<int64_t>(i) + 1);
}

TEST_CASE("pg: commits on two lanes at once are answered in the order of their seqs",
          "[storage][pg]") {
  auto schema = pg_schema_or_skip();
  if (!schema)
    return;
  auto st = schema->open();
  REQUIRE(st->commit_lanes() == 2);
  std::mutex mtx;
  std::vector<int64_t> answered; // seqs, in the order the commits were answered
  std::vector<std::string> errors;
  auto writer = [&](int t) {
    for (int b = 0; b < 40; ++b) {
      std::vector<checkpoint> batch;
      for (int i = 0; i < 25; ++i) {
        auto id = "t" + std::to_string(t) + "-" + std::to_string(b) + "-" + std::to_string(i);
        batch.push_back(create(make_op(id), {make_event(id, event_type::operation_created),
                                             make_event(id, event_type::step_started)}));
      }
      auto err = st->commit_then(batch, [&](commit_result& res) {
        std::lock_guard<std::mutex> g{mtx};
        for (auto& e : res.events)
          answered.push_back(e.seq);
      });
      if (err) {
        std::lock_guard<std::mutex> g{mtx};
        errors.push_back(message_of(err));
      }
    }
  };
  std::thread a{writer, 0};
  std::thread b{writer, 1};
  a.join();
  b.join();
  CHECK(errors.empty());
  // 2 threads x 40 batches x 25 operations x 2 events, numbered 1.. with
  // neither gap nor repeat, and answered in that order.
  REQUIRE(answered.size() == 4000);
  for (size_t i = 0; i < answered.size(); ++i)
    REQUIRE(answered[i] == static_cast<int64_t>(i + 1));
  CHECK(all_events(*st).size() == 4000);
  CHECK(load_ok(*st, "t1-39-24").id == "t1-39-24");
}

TEST_CASE("pg: a lost connection fails one call, the next reconnects", "[storage][pg]") {
  auto schema = pg_schema_or_skip();
  if (!schema)
    return;
  auto st = schema->open();
  auto op = make_op("a");
  commit_ok(*st, {create(op)});
  REQUIRE(load_ok(*st, "a").revision == 1);
  schema->cut_connections();
  // The writer finds out on its next commit: a store failure the engine
  // retries, nothing written.
  auto op2 = next(op, op_state::in_progress, 10);
  auto failed = st->commit({update(op2)});
  REQUIRE_FALSE(failed);
  CHECK(code_of(failed.error()) == errc::store_failure);
  auto retried = commit_ok(*st, {update(op2)});
  CHECK(retried.status[0] == write_status::ok);
  // A pooled reader connection died too: reads retry it once on a fresh
  // connection, so the caller does not notice.
  CHECK(load_ok(*st, "a").revision == 2);
  CHECK(last_seq_ok(*st) == 0);
}

TEST_CASE("pg: a server error in either round trip rolls the batch back", "[storage][pg]") {
  auto schema = pg_schema_or_skip();
  if (!schema)
    return;
  auto st = schema->open();
  auto a = make_op("a");
  commit_ok(*st, {create(a)});
  // Triggers make the server fail on chosen rows: a create of operation
  // "bad" (first round trip) or an event of operation "bad-ev" (second).
  auto s = schema->name();
  schema->admin("CREATE FUNCTION " + s
                + ".boom() RETURNS trigger LANGUAGE "
                  "plpgsql AS $$ BEGIN RAISE EXCEPTION 'boom'; END $$");
  schema->admin("CREATE TRIGGER boom_op BEFORE INSERT ON " + s
                + ".operations FOR EACH ROW WHEN (NEW.id = 'bad') "
                  "EXECUTE FUNCTION "
                + s + ".boom()");
  schema->admin("CREATE TRIGGER boom_ev BEFORE INSERT ON " + s
                + ".events FOR EACH ROW WHEN (NEW.operation_id = 'bad-ev') "
                  "EXECUTE FUNCTION "
                + s + ".boom()");
  auto a2 = next(a, op_state::in_progress, 1);
  auto ev = make_event("a", event_type::step_started);
  for (auto bad : {"bad", "bad-ev"}) {
    INFO("failing on " << bad);
    auto res = st->commit(
      {update(a2, {ev}), create(make_op(bad), {make_event(bad, event_type::operation_created)})});
    REQUIRE_FALSE(res);
    CHECK(code_of(res.error()) == errc::store_failure);
    CHECK_THAT(message_of(res.error()), Catch::Contains("boom"));
    CHECK(load_ok(*st, "a").revision == 1);
    require_absent(*st, bad);
    CHECK(last_seq_ok(*st) == 0);
  }
  // The same connection goes on: nothing was left half-read.
  auto res = commit_ok(*st, {update(a2, {ev})});
  CHECK(res.events.at(0).seq == 1);
  CHECK(load_ok(*st, "a").revision == 2);
}

TEST_CASE("pg: bytes PostgreSQL refuses in text do not fail the batch", "[storage][pg]") {
  auto schema = pg_schema_or_skip();
  if (!schema)
    return;
  auto st = schema->open();
  // An exception message from a driver may hold anything.
  auto op = make_op("a");
  op.error = std::string{"bad \xC3 byte, nul \0 here, ok \xE2\x9C\x93", 30};
  auto ev = make_event("a", event_type::step_failed);
  ev.error = "\xFF\xFE";
  auto res = commit_ok(*st, {create(op, {ev}), create(make_op("b"))});
  CHECK(res.status == std::vector<write_status>{write_status::ok, write_status::ok});
  CHECK(load_ok(*st, "a").error == "bad \xEF\xBF\xBD byte, nul \xEF\xBF\xBD here, ok \xE2\x9C\x93");
  CHECK(all_events(*st).at(0).error == "\xEF\xBF\xBD\xEF\xBF\xBD");
}

TEST_CASE("pg: a commit whose answer was lost is read back from its mark", "[storage][pg]") {
  auto schema = pg_schema_or_skip();
  if (!schema)
    return;
  auto st = schema->open(); // migrated
  commit_ok(*st,
            {create(make_op("before"), {make_event("before", event_type::operation_created)})});
  auto conn = pg_connection::open(schema->uri());
  REQUIRE(conn);
  REQUIRE(!pg_prepare_all(**conn));
  pg_commit_mark mark{"test-writer", 7};
  std::optional<commit_result> unsure;
  auto op = make_op("a");
  std::mutex order_mtx;
  std::unique_lock<std::mutex> order{order_mtx, std::defer_lock};
  auto written = pg_commit(**conn,
                           {create(op, {make_event("a", event_type::operation_created),
                                        make_event("a", event_type::step_started)})},
                           nullptr, false, mark, unsure, order);
  CHECK(order.owns_lock());
  REQUIRE(written);
  CHECK_FALSE(unsure);
  REQUIRE(written->events.size() == 2);
  // As if the connection had broken before the answer came.
  auto lost = *written;
  for (auto& ev : lost.events)
    ev.seq = 0;
  auto known = pg_resolve(**conn, mark, lost);
  REQUIRE(known);
  REQUIRE(*known);
  CHECK((*known)->status == written->status);
  CHECK((*known)->events[0].seq == written->events[0].seq);
  CHECK((*known)->events[1].seq == written->events[1].seq);
  CHECK(written->events[1].seq == 3);
  // A commit under the next token never reached the server: not written.
  pg_commit_mark next{"test-writer", 8};
  auto copy = *written;
  auto none = pg_resolve(**conn, next, copy);
  REQUIRE(none);
  CHECK_FALSE(*none);
}

TEST_CASE("pg: a store error does not quote the row it refused", "[storage][pg]") {
  auto schema = pg_schema_or_skip();
  if (!schema)
    return;
  schema->open().reset(); // migrated
  auto conn = pg_connection::open(schema->uri());
  REQUIRE(conn);
  REQUIRE((*conn)->exec("CREATE TEMP TABLE refused (a TEXT NOT NULL, b TEXT)", "create"));
  auto r = (*conn)->exec("INSERT INTO refused VALUES (NULL, 'pw-Qz9-never-quoted')", "insert");
  REQUIRE_FALSE(r);
  auto msg = message_of(r.error());
  INFO(msg);
  CHECK_THAT(msg, Catch::Contains("null value"));
  CHECK(msg.find("pw-Qz9-never-quoted") == std::string::npos);
}
