#include "tests/durability/file_driver.hpp"

#include <fcntl.h>
#include <unistd.h>

#include <chrono>

namespace stepwise::test {

namespace {

infra::error unsupported() {
  return {infra::error_kind::infrastructure_error, "the file driver only answers get_task"};
}

} // namespace

file_driver::file_driver(std::string dir)
  : dir_(std::move(dir)),
    polls_fd_(::open((dir_ + "/polls").c_str(), O_WRONLY | O_APPEND | O_CREAT, 0644)) {
  // nop
}

file_driver::~file_driver() {
  if (polls_fd_ >= 0)
    ::close(polls_fd_);
}

void file_driver::create(const infra::create_request&, infra::callback<infra::accepted> done,
                         const stop_token&) {
  done(unsupported());
}

void file_driver::get_task(const std::string& infrastructure_id, const std::string& request_id,
                           const infra::deployment_location&, infra::callback<infra::task> done) {
  infra::task t;
  t.infrastructure_id = infrastructure_id;
  t.request_id = request_id;
  bool complete = ::access((dir_ + "/done-" + infrastructure_id).c_str(), F_OK) == 0;
  if (complete) {
    t.status = infra::task_status::complete;
    t.outputs = {{"by", "monitor"}};
  }
  auto us = std::chrono::duration_cast<std::chrono::microseconds>(
              std::chrono::system_clock::now().time_since_epoch())
              .count();
  // One write(2) with O_APPEND per line: whole lines, even across processes.
  auto line = infrastructure_id + " " + std::to_string(::getpid()) + " "
              + std::string{infra::to_string(t.status)} + " " + std::to_string(us) + "\n";
  auto n = ::write(polls_fd_, line.data(), line.size());
  (void)n;
  done(std::move(t));
}

void file_driver::remove(const std::string&, const infra::deployment_location&,
                         infra::callback<infra::accepted> done, const stop_token&) {
  done(unsupported());
}

void file_driver::find(const std::string&, const std::string&, const std::string&,
                       const infra::deployment_location&,
                       infra::callback<std::optional<infra::found>> done) {
  done(unsupported());
}

} // namespace stepwise::test
