#include "tests/durability/wait_run.hpp"

#include <fcntl.h>
#include <unistd.h>

#include <cstdlib>
#include <map>

#include "storage/open_store.hpp"
#include "tests/durability/child_process.hpp"

namespace stepwise::test {

wait_run::wait_run(std::string store_uri) {
  char tmpl[] = "/tmp/stepwise-waits-XXXXXX";
  if (::mkdtemp(tmpl) != nullptr)
    dir_ = tmpl;
  store_uri_ = store_uri.empty() ? "sqlite:" + dir_ + "/ops.db" : std::move(store_uri);
}

wait_run::~wait_run() {
  if (!dir_.empty())
    std::system(("rm -rf " + dir_).c_str());
}

std::unique_ptr<piped_child> wait_run::spawn(const std::vector<std::string>& extra) const {
  auto path = std::getenv("STEPWISE_TEST_CHILD");
  if (path == nullptr || dir_.empty())
    return nullptr;
  std::vector<std::string> args{path, "wait", store_uri_, dir_ + "/effects", dir_ + "/acked", dir_};
  args.insert(args.end(), extra.begin(), extra.end());
  auto child = std::make_unique<piped_child>(args);
  // Start-up is slow under the sanitizers: the answer's bound covers it.
  if (child->answer().rfind("ready ", 0) != 0)
    return nullptr;
  return child;
}

void wait_run::touch(const std::string& name) const {
  auto fd = ::open((dir_ + "/" + name).c_str(), O_WRONLY | O_CREAT, 0644);
  if (fd >= 0)
    ::close(fd);
}

std::vector<std::string> wait_run::polls() const {
  return lines(dir_ + "/polls");
}

store_ptr wait_run::open() const {
  auto st = open_store(store_uri_);
  return st ? *st : nullptr;
}

size_t count(const std::vector<event>& log, const std::string& id, event_type type,
             const std::string& step) {
  size_t n = 0;
  for (auto& e : log)
    n += e.operation_id == id && e.type == type && (step.empty() || e.step == step);
  return n;
}

bool well_formed(const std::vector<event>& log) {
  std::map<std::string, int> terminal;
  int64_t expect = 1;
  for (auto& e : log) {
    if (e.seq != expect)
      return false;
    expect = e.seq + 1;
    if (is_terminal(e.type) && ++terminal[e.operation_id] > 1)
      return false;
  }
  return true;
}

} // namespace stepwise::test
