// The backend-independent store suite, part 6: the rows `stepwise secrets
// rotate` reads and rewrites, and the rotation itself.
#include <catch2/catch.hpp>

#include "engine/sealed_json.hpp"
#include "engine/secret_box.hpp"
#include "storage/rotate_secrets.hpp"
#include "tests/engine/test_keys.hpp"
#include "tests/storage/store_backends.hpp"
#include "tests/storage/store_fixtures.hpp"

using namespace stepwise;
using namespace stepwise::test;

namespace {

sealed_rows& rows_of(const store_ptr& st) {
  auto* rows = dynamic_cast<sealed_rows*>(st.get());
  REQUIRE(rows != nullptr);
  return *rows;
}

/// An operation whose input holds `password` at `/creds`, sealed with
/// `keys` (the plain form when null).
operation with_secret(const std::string& id, const std::string& password, const key_ring* keys) {
  auto op = make_op(id);
  boost::json::object input{{"name", id}, {"creds", {{"password", password}}}};
  REQUIRE(!seal_paths(input, {"/creds"}, keys, id));
  op.input = std::make_shared<const boost::json::object>(std::move(input));
  return op;
}

/// Returns the id of the key that sealed `/creds` of `op`'s input.
std::string creds_key(const operation& op) {
  return std::string{secret_box::key_id_of(op.input->at("creds").at("$sealed").as_string())};
}

/// Returns `/creds/password` of `op`'s input, opened with `keys`.
std::string password_of(const operation& op, const key_ring& keys) {
  auto opened = open_all(op.input, &keys, op.id);
  if (!opened)
    FAIL(message_of(opened.error()));
  return std::string{(*opened)->at("creds").at("password").as_string()};
}

/// Passes calls on, and lets a test write to the store between a read and
/// the rewrite that follows it (a server checkpointing meanwhile).
struct racing_rows : sealed_rows {
  sealed_rows& inner;
  std::function<void()> between;

  explicit racing_rows(sealed_rows& x) : inner(x) {
    // nop
  }

  caf::expected<std::vector<sealed_row>> sealed_after(const std::string& after,
                                                      size_t limit) override {
    auto rows = inner.sealed_after(after, limit);
    if (between) {
      between();
      between = nullptr;
    }
    return rows;
  }

  caf::expected<size_t> rewrite_sealed(const std::vector<sealed_row>& rows) override {
    return inner.rewrite_sealed(rows);
  }
};

} // namespace

TEST_CASE("rows with sealed values are read by id and rewritten at their revision only",
          "[storage][secrets]") {
  auto k1 = test_ring("k1 " + key_a + "\n");
  for (auto& [name, make] : test_backends()) {
    DYNAMIC_SECTION("backend " << name) {
      auto st = make();
      auto& rows = rows_of(st);
      auto in_data = make_op("op-3");
      commit_ok(*st, {create(with_secret("op-1", "pw1", &k1)), create(make_op("op-2")),
                      create(in_data), create(with_secret("op-4", "pw4", &k1))});
      // A value a step kept, in the data.
      auto kept = next(in_data, op_state::in_progress, 5);
      auto sealed = seal_value("tok", &k1, "op-3");
      REQUIRE(sealed);
      kept.data["api_token"] = *sealed;
      commit_ok(*st, {update(kept)});
      auto first = rows.sealed_after("", 2);
      REQUIRE(first);
      REQUIRE(first->size() == 2);
      CHECK((*first)[0].id == "op-1");
      CHECK((*first)[0].revision == 1);
      CHECK((*first)[0].input.find("$sealed") != std::string::npos);
      CHECK((*first)[1].id == "op-3");
      CHECK((*first)[1].revision == 2);
      auto rest = rows.sealed_after("op-3", 10);
      REQUIRE(rest);
      REQUIRE(rest->size() == 1);
      CHECK((*rest)[0].id == "op-4");
      // op-4 moved on meanwhile: its rewrite is skipped.
      commit_ok(*st, {update(next(load_ok(*st, "op-4"), op_state::in_progress, 6))});
      auto one = (*first)[0];
      one.input = R"({"name":"op-1","creds":"rewritten"})";
      auto four = (*rest)[0];
      four.data = R"({"x":1})";
      auto written = rows.rewrite_sealed({one, four});
      REQUIRE(written);
      CHECK(*written == 1);
      auto op1 = load_ok(*st, "op-1");
      CHECK(op1.input->at("creds") == "rewritten");
      CHECK(op1.revision == 1);
      CHECK(load_ok(*st, "op-4").data.empty());
      // The engine's next checkpoint of op-1 goes through as usual.
      commit_ok(*st, {update(next(op1, op_state::in_progress, 7))});
      CHECK(load_ok(*st, "op-1").revision == 2);
      auto none = rows.rewrite_sealed({});
      REQUIRE(none);
      CHECK(*none == 0);
    }
  }
}

TEST_CASE("rotation puts every stored secret under the current key", "[storage][secrets]") {
  auto k1 = test_ring("k1 " + key_a + "\n");
  auto rotated = test_ring("k2 " + key_b + "\nk1 " + key_a + "\n");
  auto k2_only = test_ring("k2 " + key_b + "\n");
  for (auto& [name, make] : test_backends()) {
    DYNAMIC_SECTION("backend " << name) {
      auto st = make();
      commit_ok(*st, {create(with_secret("op-1", "pw1", &k1)),
                      create(with_secret("op-2", "pw2", nullptr)),
                      create(with_secret("op-3", "pw3", &rotated)), create(make_op("op-4")),
                      create(with_secret("op-5", "pw5", &k1))});
      std::vector<size_t> progress;
      rotation_options opts;
      opts.batch = 2;
      opts.progress = [&](const rotation_report& r) { progress.push_back(r.checked); };
      auto rep = rotate_secrets(rows_of(st), rotated, opts);
      REQUIRE(rep);
      CHECK(rep->checked == 4);
      CHECK(rep->rewritten == 3);
      CHECK(rep->changed == 0);
      CHECK(rep->passes == 1);
      CHECK(rep->failures.empty());
      CHECK(progress == std::vector<size_t>{2, 4});
      for (auto [id, pw] :
           {std::pair{"op-1", "pw1"}, {"op-2", "pw2"}, {"op-3", "pw3"}, {"op-5", "pw5"}}) {
        auto op = load_ok(*st, id);
        CHECK(creds_key(op) == "k2");
        CHECK(password_of(op, k2_only) == pw);
      }
      // Done: a second run finds nothing to do.
      auto again = rotate_secrets(rows_of(st), rotated, {});
      REQUIRE(again);
      CHECK(again->rewritten == 0);
    }
  }
}

TEST_CASE("rotation lists values it cannot open and retries rows that changed",
          "[storage][secrets]") {
  auto k0 = test_ring("k0 " + key_b + "\n");
  auto k1 = test_ring("k1 " + key_a + "\n");
  auto rotated = test_ring("k2 " + key_b + "\nk1 " + key_a + "\n");
  for (auto& [name, make] : test_backends()) {
    DYNAMIC_SECTION("backend " << name) {
      auto st = make();
      commit_ok(*st,
                {create(with_secret("op-1", "pw1", &k0)), create(with_secret("op-2", "pw2", &k1))});
      racing_rows racing{rows_of(st)};
      // A server writes op-2 between the read and the rewrite of the
      // first batch (with its old key: it runs without the new one yet).
      racing.between = [&] {
        commit_ok(*st, {update(next(load_ok(*st, "op-2"), op_state::in_progress, 5))});
      };
      auto rep = rotate_secrets(racing, rotated, {});
      REQUIRE(rep);
      CHECK(rep->passes == 2);
      CHECK(rep->changed == 0);
      CHECK(rep->rewritten == 1);
      REQUIRE(rep->failures.size() == 1);
      CHECK(rep->failures.begin()->first == "op-1");
      CHECK(rep->failures.begin()->second.find("'k0'") != std::string::npos);
      auto op2 = load_ok(*st, "op-2");
      CHECK(creds_key(op2) == "k2");
      CHECK(op2.revision == 2);
      CHECK(creds_key(load_ok(*st, "op-1")) == "k0");
    }
  }
}
