// The backend-independent store suite, part 4: reads from several threads
// while one thread commits.

#include <atomic>
#include <map>
#include <mutex>
#include <thread>

#include <catch2/catch.hpp>

#include "tests/storage/store_backends.hpp"
#include "tests/storage/store_fixtures.hpp"

using namespace stepwise;
using namespace stepwise::test;

namespace {

constexpr int n_ops = 20;
constexpr int n_rounds = 100;
constexpr int n_readers = 3;

std::string op_id(int i) {
  return "op-" + std::to_string(i);
}

// Catch assertions are not thread-safe: reader threads collect problems
// here and the test thread checks them after joining.
class problems {
public:
  void add(std::string what) {
    std::lock_guard<std::mutex> guard{mtx_};
    if (list_.size() < 20)
      list_.push_back(std::move(what));
  }

  std::vector<std::string> get() {
    std::lock_guard<std::mutex> guard{mtx_};
    return list_;
  }

private:
  std::mutex mtx_;
  std::vector<std::string> list_;
};

// Reads everything in a loop until `done`, checking what any consistent
// snapshot must show. Returns the number of read rounds.
int read_loop(store& st, const std::atomic<bool>& done, problems& out) {
  std::map<std::string, int64_t> revision_seen;
  int64_t seq_seen = 0;
  int64_t after = 0;
  int rounds = 0;
  for (; !done.load() || rounds == 0; ++rounds) {
    auto id = op_id(rounds % n_ops);
    auto op = st.load(id);
    if (!op || !*op) {
      out.add("load " + id + (op ? " found nothing" : " failed: " + message_of(op.error())));
      continue;
    }
    auto& o = **op;
    // The data and the revision come from the same write.
    auto* round = o.data.if_contains("round");
    if (round == nullptr || !round->is_int64() || round->get_int64() != o.revision - 1)
      out.add("torn read of " + id);
    if (o.revision < revision_seen[id])
      out.add("revision of " + id + " went back");
    revision_seen[id] = o.revision;
    auto seq = st.last_seq();
    if (!seq)
      out.add("last_seq failed: " + message_of(seq.error()));
    else if (*seq < seq_seen)
      out.add("last_seq went back");
    else
      seq_seen = *seq;
    auto evs = st.events_after(after, 37);
    if (!evs)
      out.add("events_after failed: " + message_of(evs.error()));
    else
      for (auto& ev : *evs)
        if (ev.seq != ++after)
          out.add("gap in the event log at " + std::to_string(after));
    list_filter f;
    f.limit = 5;
    f.state = op_state::in_progress;
    if (auto page = st.list(f); !page)
      out.add("list failed: " + message_of(page.error()));
  }
  return rounds;
}

} // namespace

TEST_CASE("readers on several threads see consistent data during commits", "[storage]") {
  for (auto& [name, make] : test_backends()) {
    DYNAMIC_SECTION("backend " << name) {
      auto st = make();
      std::vector<operation> ops;
      std::vector<checkpoint> seed;
      for (int i = 0; i < n_ops; ++i) {
        auto op = make_op(op_id(i), i);
        op.data["round"] = 0;
        ops.push_back(op);
        seed.push_back(create(op, {make_event(op.id, event_type::operation_created)}));
      }
      commit_ok(*st, seed);
      std::atomic<bool> done{false};
      problems found;
      std::vector<int> reads(n_readers, 0);
      std::vector<std::thread> readers;
      for (int r = 0; r < n_readers; ++r)
        readers.emplace_back(
          [&, r] { reads[static_cast<size_t>(r)] = read_loop(*st, done, found); });
      std::vector<std::string> write_errors;
      for (int round = 1; round <= n_rounds; ++round) {
        std::vector<checkpoint> batch;
        for (auto& op : ops) {
          op = next(op, op_state::in_progress, round);
          op.data["round"] = round;
          batch.push_back(update(op, {make_event(op.id, event_type::step_started, round)}));
        }
        auto res = st->commit(batch);
        if (!res)
          write_errors.push_back(message_of(res.error()));
        else if (res->events.size() != ops.size())
          write_errors.push_back("round " + std::to_string(round) + " wrote too few events");
      }
      done = true;
      for (auto& t : readers)
        t.join();
      CHECK(write_errors.empty());
      CHECK(found.get().empty());
      for (auto n : reads)
        CHECK(n > 0);
      CHECK(last_seq_ok(*st) == n_ops * (n_rounds + 1));
      CHECK(all_events(*st).size() == static_cast<size_t>(n_ops * (n_rounds + 1)));
      for (auto& op : ops)
        check_same(load_ok(*st, op.id), op);
    }
  }
}
