#include "tests/faults/fault_support.hpp"

#include <fcntl.h>
#include <signal.h>
#include <unistd.h>

#include <atomic>
#include <cctype>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <map>
#include <mutex>
#include <set>
#include <sstream>
#include <thread>

#include <catch2/catch.hpp>

namespace stepwise::test {

namespace json = boost::json;
using steady = std::chrono::steady_clock;

void print_figure(const json::object& figure) {
  std::printf("%s\n", json::serialize(figure).c_str());
  std::fflush(stdout);
}

std::string source_root() {
  auto p = std::getenv("STEPWISE_SOURCE_ROOT");
  return p != nullptr ? p : ".";
}

namespace {

std::string stepwise_bin() {
  auto p = std::getenv("STEPWISE_BIN");
  return p != nullptr ? p : "build/stepwise";
}

std::string read_file(const std::string& path) {
  std::ifstream in{path};
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

} // namespace

fault_server::fault_server(const std::string& dir, std::vector<std::string> args)
  : log_path_(dir + "/serve.log") {
  std::vector<std::string> argv{stepwise_bin(), "serve", "--listen", "127.0.0.1:0"};
  argv.insert(argv.end(), args.begin(), args.end());
  pid_ = ::fork();
  REQUIRE(pid_ >= 0);
  if (pid_ == 0) {
    // A file, not a pipe: nobody has to keep reading it for the server to
    // go on writing.
    int fd = ::open(log_path_.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0600);
    ::dup2(fd, 2);
    int null = ::open("/dev/null", O_WRONLY);
    ::dup2(null, 1);
    exec_args(std::move(argv));
  }
  const std::string marker = "listening on http://127.0.0.1:";
  auto deadline = steady::now() + std::chrono::seconds(60);
  while (steady::now() < deadline && port_ == 0) {
    auto text = log();
    if (auto pos = text.find(marker); pos != std::string::npos)
      port_ = std::atoi(text.c_str() + pos + marker.size());
    else
      std::this_thread::sleep_for(std::chrono::milliseconds(20));
  }
  INFO(log());
  REQUIRE(port_ > 0);
}

fault_server::~fault_server() {
  kill_and_reap(pid_);
}

std::unique_ptr<httplib::Client> fault_server::client() const {
  auto c = std::make_unique<httplib::Client>("127.0.0.1", port_);
  c->set_keep_alive(true);
  c->set_connection_timeout(2, 0);
  c->set_read_timeout(60, 0);
  return c;
}

std::pair<int, std::string> fault_server::readyz() const {
  auto c = client();
  c->set_read_timeout(5, 0);
  auto r = c->Get("/readyz");
  if (!r)
    return {0, ""};
  return {r->status, r->body};
}

bool fault_server::await_readyz(int status, std::chrono::seconds bound) const {
  auto deadline = steady::now() + bound;
  while (steady::now() < deadline) {
    if (readyz().first == status)
      return true;
    std::this_thread::sleep_for(std::chrono::milliseconds(50));
  }
  return false;
}

std::string fault_server::log() const {
  return read_file(log_path_);
}

int fault_server::stop() {
  if (pid_ <= 0)
    return -1;
  ::kill(pid_, SIGTERM);
  return reap(pid_, std::chrono::seconds(30));
}

namespace {

/// Whether `line` is in the server's format: an ISO 8601 UTC time
/// (`2026-11-26T16:23:53.123Z`), a padded level, a message.
bool server_format(const std::string& line) {
  const std::string shape = "dddd-dd-ddTdd:dd:dd";
  if (line.size() < shape.size())
    return false;
  for (size_t i = 0; i < shape.size(); ++i)
    if (shape[i] == 'd' ? !std::isdigit(static_cast<unsigned char>(line[i])) : line[i] != shape[i])
      return false;
  auto at = shape.size();
  if (at < line.size() && line[at] == '.') {
    auto digits = ++at;
    while (at < line.size() && std::isdigit(static_cast<unsigned char>(line[at])))
      ++at;
    if (at == digits)
      return false;
  }
  for (auto level : {"Z error ", "Z warn  ", "Z info  ", "Z debug "})
    if (line.compare(at, std::strlen(level), level) == 0)
      return true;
  return false;
}

} // namespace

std::vector<std::string> foreign_lines(const std::string& log) {
  std::vector<std::string> out;
  std::istringstream in{log};
  std::string line;
  while (std::getline(in, line))
    if (!server_format(line))
      out.push_back(line);
  return out;
}

void check_run(const fault_server& srv, const std::vector<json::object>& log,
               const std::vector<std::string>& ids) {
  auto problems = log_problems(log, ids);
  for (size_t i = 0; i < problems.size() && i < 20; ++i)
    UNSCOPED_INFO(problems[i]);
  CHECK(problems.empty());
  auto text = srv.log();
  INFO(text);
  CHECK(foreign_lines(text).empty());
}

// -- creator ------------------------------------------------------------------

struct creator::state {
  std::vector<std::string> workflows;
  std::vector<std::string> ids;
  std::atomic<size_t> next{0};
  std::atomic<size_t> acked{0};
  std::atomic<bool> quit{false};
  mutable std::mutex mtx;
  std::vector<std::string> refusals;
  std::vector<std::thread> threads;
};

creator::creator(const fault_server& srv, std::vector<std::string> workflows, size_t n,
                 size_t threads)
  : st_(std::make_shared<state>()) {
  st_->workflows = std::move(workflows);
  st_->ids.resize(n);
  auto port = srv.port();
  for (size_t t = 0; t < threads; ++t)
    st_->threads.emplace_back([st = st_, port, n] {
      httplib::Client c{"127.0.0.1", port};
      c.set_keep_alive(true);
      c.set_connection_timeout(2, 0);
      c.set_read_timeout(60, 0);
      for (auto i = st->next++; i < n && !st->quit; i = st->next++) {
        auto& wf = st->workflows[i % st->workflows.size()];
        auto body = R"({"workflow":")" + wf + R"(","idempotency_key":"fault-)" + std::to_string(i)
                    + R"(","input":{"i":)" + std::to_string(i) + "}}";
        while (!st->quit) {
          auto r = c.Post("/api/v1/operations", body, "application/json");
          if (r && (r->status == 201 || r->status == 200)) {
            st->ids[i] = std::string(json::parse(r->body).at("id").as_string());
            ++st->acked;
            break;
          }
          if (r && r->status != 503) {
            std::lock_guard<std::mutex> guard{st->mtx};
            st->refusals.push_back("unexpected " + std::to_string(r->status) + ": " + r->body);
            break;
          }
          if (r) {
            std::lock_guard<std::mutex> guard{st->mtx};
            st->refusals.push_back(r->body);
          }
          // Refused or cut off: the same key again, a moment later.
          std::this_thread::sleep_for(std::chrono::milliseconds(100));
        }
      }
    });
}

creator::~creator() {
  st_->quit = true;
  for (auto& t : st_->threads)
    if (t.joinable())
      t.join();
}

size_t creator::acknowledged() const {
  return st_->acked.load();
}

std::vector<std::string> creator::finish(std::chrono::seconds bound) {
  auto deadline = steady::now() + bound;
  while (st_->acked.load() < st_->ids.size() && steady::now() < deadline)
    std::this_thread::sleep_for(std::chrono::milliseconds(20));
  st_->quit = true;
  for (auto& t : st_->threads)
    t.join();
  std::vector<std::string> out;
  for (auto& id : st_->ids)
    if (!id.empty())
      out.push_back(id);
  return out;
}

std::vector<std::string> creator::refusals() const {
  std::lock_guard<std::mutex> guard{st_->mtx};
  return st_->refusals;
}

// -- the event log ------------------------------------------------------------

std::vector<json::object> read_log(const fault_server& srv) {
  auto c = srv.client();
  std::vector<json::object> out;
  int64_t after = 0;
  for (;;) {
    auto r = c->Get("/api/v1/events?limit=1000&after=" + std::to_string(after));
    REQUIRE(r);
    INFO(r->body);
    REQUIRE(r->status == 200);
    auto page = json::parse(r->body).as_object();
    auto& items = page.at("items").as_array();
    if (items.empty())
      return out;
    for (auto& e : items)
      out.push_back(e.as_object());
    after = page.at("next_after").to_number<int64_t>();
  }
}

std::vector<json::object> await_ended(const fault_server& srv, const std::vector<std::string>& ids,
                                      std::chrono::seconds bound) {
  auto deadline = steady::now() + bound;
  std::set<std::string> wanted(ids.begin(), ids.end());
  for (;;) {
    auto log = read_log(srv);
    size_t ended = 0;
    for (auto& e : log) {
      auto type = e.at("type").as_string();
      if ((type == "operation_succeeded" || type == "operation_failed"
           || type == "operation_canceled")
          && wanted.count(std::string(e.at("operation_id").as_string())) > 0)
        ++ended;
    }
    if (ended >= wanted.size() || steady::now() >= deadline)
      return log;
    std::this_thread::sleep_for(std::chrono::milliseconds(200));
  }
}

std::vector<std::string> log_problems(const std::vector<json::object>& log,
                                      const std::vector<std::string>& ids) {
  std::vector<std::string> out;
  struct op_seen {
    int created = 0;
    int succeeded = 0;
    int ended = 0;
    std::map<std::string, int> step_done;
  };
  std::map<std::string, op_seen> ops;
  for (auto& id : ids)
    ops[id];
  int64_t expect = 0;
  for (auto& e : log) {
    auto seq = e.at("seq").to_number<int64_t>();
    if (seq != expect + 1)
      out.push_back("seq " + std::to_string(seq) + " follows " + std::to_string(expect));
    expect = seq;
    auto id = std::string(e.at("operation_id").as_string());
    auto i = ops.find(id);
    if (i == ops.end()) {
      out.push_back("event " + std::to_string(seq) + " of an unknown operation " + id);
      continue;
    }
    auto& o = i->second;
    auto type = std::string(e.at("type").as_string());
    auto step = e.if_contains("step") ? std::string(e.at("step").as_string()) : "";
    if (type == "operation_created")
      ++o.created;
    else if (type == "operation_succeeded")
      ++o.succeeded, ++o.ended;
    else if (type == "operation_failed" || type == "operation_canceled")
      ++o.ended;
    else if (type == "step_succeeded" && ++o.step_done[step] > 1)
      out.push_back(id + ": step " + step + " succeeded again (seq " + std::to_string(seq) + ")");
    else if (type == "step_started" && o.step_done[step] > 0)
      out.push_back(id + ": step " + step + " started after it succeeded (seq "
                    + std::to_string(seq) + ")");
  }
  for (auto& [id, o] : ops)
    if (o.created != 1 || o.succeeded != 1 || o.ended != 1)
      out.push_back(id + ": " + std::to_string(o.created) + " created, "
                    + std::to_string(o.succeeded) + " succeeded, " + std::to_string(o.ended)
                    + " ended events");
  return out;
}

} // namespace stepwise::test
