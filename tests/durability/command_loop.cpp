#include "tests/durability/command_loop.hpp"

#include <chrono>
#include <istream>
#include <ostream>
#include <sstream>
#include <thread>

#include "engine/errc.hpp"

namespace stepwise::test {

namespace {

using namespace std::chrono_literals;

std::string refusal(const caf::error& err) {
  return "err " + std::to_string(static_cast<int>(code_of(err))) + " " + message_of(err);
}

boost::json::value parse_json(const std::string& text) {
  boost::system::error_code ec;
  auto v = boost::json::parse(text, ec);
  return ec ? boost::json::value{} : v;
}

std::string start(engine& eng, std::istream& args) {
  std::string wf, input;
  args >> wf;
  std::getline(args >> std::ws, input);
  auto v = parse_json(input);
  if (!v.is_object())
    return "err 2 the input is not a JSON object";
  auto res = eng.start({wf, std::nullopt, v.get_object(), {}, std::nullopt});
  return res ? "ok " + res->op.id : refusal(res.error());
}

std::string signal(engine& eng, std::istream& args) {
  std::string id, name, sid, payload;
  args >> id >> name >> sid;
  std::getline(args >> std::ws, payload);
  auto res = eng.signal(id, {name, parse_json(payload), sid == "-" ? "" : sid});
  if (!res)
    return refusal(res.error());
  return res->duplicate ? "duplicate" : "accepted";
}

bool logged(engine& eng, const std::string& id, event_type type, const std::string& step) {
  auto events = eng.events(0, 10'000'000);
  if (!events)
    return false;
  for (auto& e : *events)
    if (e.operation_id == id && e.type == type && (step == "-" || e.step == step))
      return true;
  return false;
}

// Polls the log: the store is the truth the test checks afterwards, so the
// child answers from it too.
std::string await(engine& eng, std::istream& args) {
  std::string id, type_name, step;
  args >> id >> type_name >> step;
  auto type = parse_event_type(type_name);
  if (!type)
    return "err 2 unknown event type";
  auto until = std::chrono::steady_clock::now() + 60s;
  while (!logged(eng, id, *type, step)) {
    if (std::chrono::steady_clock::now() > until)
      return "timeout";
    std::this_thread::sleep_for(5ms);
  }
  return "seen";
}

} // namespace

void serve_commands(engine& eng, std::istream& in, std::ostream& out) {
  auto owner = eng.owner();
  out << "> ready " << (owner.empty() ? "-" : owner) << std::endl;
  for (std::string line; std::getline(in, line);) {
    std::istringstream args{line};
    std::string cmd;
    args >> cmd;
    std::string answer;
    if (cmd == "finish")
      return;
    if (cmd == "start")
      answer = start(eng, args);
    else if (cmd == "signal")
      answer = signal(eng, args);
    else if (cmd == "await")
      answer = await(eng, args);
    else
      answer = "err 2 unknown command";
    out << "> " << answer << std::endl;
  }
}

} // namespace stepwise::test
