// The process the outbox's SIGKILL and takeover tests run: an engine with an
// outbox of one sink, starting operations.
//
// usage: test_child outbox STORE SINK N MODE ACKED [LEASE_MS]
//   run:    start N operations, then run until killed (at most 120 s)
//   finish: start N operations, wait until no operation of any process is
//           left and the sink delivered the whole log, stop, exit 0
//   ACKED lines: "<op>" for every start the engine acknowledged
#include <fcntl.h>
#include <unistd.h>

#include <chrono>
#include <iostream>
#include <string>
#include <thread>

#include <caf/actor_system.hpp>
#include <caf/actor_system_config.hpp>

#include "engine/engine.hpp"
#include "engine/errc.hpp"
#include "outbox/outbox.hpp"
#include "storage/open_store.hpp"
#include "tests/outbox/support.hpp"
#include "tests/test_child.hpp"

using namespace stepwise;
using namespace std::chrono_literals;

namespace {

// Operations not yet terminal, of every process (the store may be shared).
bool any_active(store& st) {
  auto active = st.load_active();
  return !active || !active->empty();
}

bool delivered_all(outbox::outbox& ob) {
  auto s = ob.status();
  return s && !s->empty() && s->front().held_here && s->front().lag == 0;
}

} // namespace

int outbox_child(int argc, char** argv) {
  if (argc < 6)
    return 2;
  std::string mode = argv[4];
  int acked_fd = ::open(argv[5], O_WRONLY | O_APPEND | O_CREAT, 0644);
  auto lease = std::chrono::milliseconds(argc > 6 ? std::stoi(argv[6]) : 1000);
  caf::actor_system_config cfg;
  tune_actor_system(cfg);
  caf::actor_system sys{cfg};
  auto st = open_store(argv[1]);
  if (!st) {
    std::cerr << message_of(st.error()) << '\n';
    return 3;
  }
  engine_config ec;
  ec.lease_ttl = lease;
  auto eng = engine::launch(sys, ec, test::outbox_workflows(), *st);
  if (!eng) {
    std::cerr << message_of(eng.error()) << '\n';
    return 4;
  }
  auto sink = outbox::parse_sink(argv[2]);
  if (!sink)
    return 5;
  outbox::outbox_config oc;
  oc.sinks = {*sink};
  oc.timing = test::fast_timing();
  oc.timing.lease_ttl = lease;
  auto ob = outbox::outbox::start(sys, *eng, *st, oc);
  if (!ob) {
    std::cerr << message_of(ob.error()) << '\n';
    return 6;
  }
  auto n = std::stoi(argv[3]);
  for (int i = 0; i < n; ++i) {
    auto wf = i % 5 == 4 ? "task" : "three";
    boost::json::object input{
      {"request_id", "r-" + std::to_string(::getpid()) + "-" + std::to_string(i)}};
    if (auto res = eng->start({wf, std::nullopt, input, {}, std::nullopt})) {
      auto line = res->op.id + "\n";
      auto w = ::write(acked_fd, line.data(), line.size());
      static_cast<void>(w);
    }
  }
  auto limit = std::chrono::steady_clock::now() + 120s;
  if (mode == "run") {
    while (std::chrono::steady_clock::now() < limit)
      std::this_thread::sleep_for(50ms);
    return 7;
  }
  while (any_active(**st) || !delivered_all(**ob)) {
    if (std::chrono::steady_clock::now() > limit) {
      std::cerr << "outbox_child: not delivered after 120 s\n";
      return 8;
    }
    std::this_thread::sleep_for(10ms);
  }
  (*ob)->stop();
  eng->shutdown();
  return 0;
}
