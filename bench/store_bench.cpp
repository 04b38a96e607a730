// Commit throughput of a store: the checkpoints per second a group commit
// sustains at a given batch size.
//
// Each checkpoint is what the engine writes after a step: an update of one
// operation (10 steps, small data) with two events (step_succeeded and the
// next step_started). Batches touch distinct operations, as group commit
// does. Only the time inside `commit` counts, not building the batch.
//
// Usage: store_bench [--store URI] [--batch N[,N...]] [--seconds S]
//                    [--runs R]
// Prints one JSON line per run.

#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <ctime>
#include <filesystem>
#include <sstream>
#include <string>
#include <vector>

#include "engine/errc.hpp"
#include "storage/open_store.hpp"
#include "storage/postgresql.hpp"

using namespace stepwise;

namespace {

constexpr size_t n_ops = 5000;

time_point now() {
  return std::chrono::time_point_cast<duration>(std::chrono::system_clock::now());
}

operation make_operation(size_t i) {
  operation op;
  op.id = "bench-" + std::to_string(i);
  op.workflow = "provision_runtime";
  op.workflow_version = 1;
  op.state = op_state::in_progress;
  op.input = std::make_shared<const boost::json::object>(
    boost::json::object{{"name", op.id}, {"region", "eu-west-1"}, {"size", "m5.large"}});
  op.data = {{"vm_id", "vm-" + std::to_string(i)}, {"step", 0}};
  for (int s = 0; s < 10; ++s)
    op.steps.push_back({"step_" + std::to_string(s), (s + 1) * 10, step_state::pending, 0,
                        std::nullopt, std::nullopt, std::nullopt, 0, ""});
  op.created_at = op.updated_at = now();
  op.revision = 1;
  return op;
}

// Advances `op` by one step, as a checkpoint after that step would.
checkpoint advance(operation& op) {
  auto t = now();
  auto k = static_cast<size_t>(op.revision - 1) % op.steps.size();
  auto& s = op.steps[k];
  s.state = step_state::succeeded;
  s.attempts += 1;
  s.first_attempt_at = s.first_attempt_at.value_or(t);
  s.last_attempt_at = t;
  s.duration_ms = 3;
  op.data["step"] = static_cast<int64_t>(k);
  op.updated_at = t;
  op.revision += 1;
  event done{0, t, op.id, event_type::step_succeeded, s.name, s.attempts, "succeeded", "", {}};
  event started{
    0,         t,  op.id, event_type::step_started, op.steps[(k + 1) % op.steps.size()].name, 1,
    "running", "", {}};
  return {checkpoint::kind::update,
          std::make_shared<const operation>(op),
          {std::move(done), std::move(started)}};
}

// CPU time of this thread: on a shared machine, wall time also measures
// the neighbours.
double thread_cpu_seconds() {
  timespec ts{};
  clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
  return static_cast<double>(ts.tv_sec) + ts.tv_nsec / 1e9;
}

std::vector<size_t> parse_sizes(const std::string& text) {
  std::vector<size_t> out;
  std::stringstream in{text};
  std::string item;
  while (std::getline(in, item, ','))
    out.push_back(std::stoul(item));
  return out;
}

} // namespace

int main(int argc, char** argv) {
  stepwise::use_postgresql();
  auto dir = std::filesystem::temp_directory_path() / "stepwise-store-bench";
  std::string uri = "sqlite:" + (dir / "bench.db").string();
  std::vector<size_t> sizes{1, 100, 1000};
  double seconds = 3;
  int runs = 3;
  for (int i = 1; i + 1 < argc; i += 2) {
    std::string key = argv[i];
    std::string val = argv[i + 1];
    if (key == "--store")
      uri = val;
    else if (key == "--batch")
      sizes = parse_sizes(val);
    else if (key == "--seconds")
      seconds = std::stod(val);
    else if (key == "--runs")
      runs = std::stoi(val);
  }
  std::filesystem::remove_all(dir);
  std::filesystem::create_directories(dir);
  auto st = open_store(uri);
  if (!st) {
    std::fprintf(stderr, "%s\n", message_of(st.error()).c_str());
    return 1;
  }
  std::vector<operation> ops;
  std::vector<checkpoint> seed;
  for (size_t i = 0; i < n_ops; ++i) {
    ops.push_back(make_operation(i));
    seed.push_back({checkpoint::kind::create, std::make_shared<const operation>(ops.back()), {}});
  }
  if (auto res = (*st)->commit(seed); !res) {
    std::fprintf(stderr, "%s\n", message_of(res.error()).c_str());
    return 1;
  }
  size_t cursor = 0;
  for (auto batch_size : sizes) {
    for (int run = 0; run < runs; ++run) {
      size_t checkpoints = 0;
      size_t events = 0;
      size_t commits = 0;
      std::chrono::duration<double> spent{0};
      double cpu = 0;
      while (spent.count() < seconds) {
        std::vector<checkpoint> batch;
        for (size_t k = 0; k < batch_size; ++k)
          batch.push_back(advance(ops[cursor++ % n_ops]));
        auto t0 = std::chrono::steady_clock::now();
        auto c0 = thread_cpu_seconds();
        auto res = (*st)->commit(batch);
        cpu += thread_cpu_seconds() - c0;
        spent += std::chrono::steady_clock::now() - t0;
        if (!res) {
          std::fprintf(stderr, "%s\n", message_of(res.error()).c_str());
          return 1;
        }
        checkpoints += batch.size();
        events += res->events.size();
        commits += 1;
      }
      std::printf("{\"store\":\"%s\",\"batch\":%zu,\"run\":%d,\"commits\":%zu,"
                  "\"checkpoints_per_s\":%.0f,\"events_per_s\":%.0f,"
                  "\"commit_ms\":%.3f,\"cpu_ms\":%.3f}\n",
                  (*st)->backend().c_str(), batch_size, run + 1, commits,
                  checkpoints / spent.count(), events / spent.count(),
                  1000.0 * spent.count() / commits, 1000.0 * cpu / commits);
      std::fflush(stdout);
    }
  }
  st->reset();
  std::filesystem::remove_all(dir);
  return 0;
}
