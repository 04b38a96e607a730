#include <cstdio>
#include <thread>

#include "tools/api_client.hpp"
#include "tools/cli.hpp"
#include "tools/client_common.hpp"
#include "tools/table.hpp"

namespace stepwise::tools {

namespace {

std::string detail(const boost::json::value& e) {
  std::string out;
  for (auto key : {"attempt", "state", "error"}) {
    auto v = text_of(e, key);
    if (v != "-")
      out += (out.empty() ? "" : " ") + std::string(key) + "=" + v;
  }
  return cell(out, 70);
}

std::vector<std::string> row(const boost::json::value& e) {
  return {text_of(e, "seq"),  text_of(e, "time"), text_of(e, "operation_id"),
          text_of(e, "type"), text_of(e, "step"), detail(e)};
}

const std::vector<std::string> header{"SEQ", "TIME", "OPERATION", "TYPE", "STEP", "DETAIL"};

// Streamed rows cannot be measured in advance: fixed widths instead.
void print_row(const std::vector<std::string>& r) {
  std::printf("%-8s %-24s %-36s %-28s %-14s %s\n", r[0].c_str(), r[1].c_str(), r[2].c_str(),
              r[3].c_str(), r[4].c_str(), r[5].c_str());
  std::fflush(stdout);
}

int follow(api_client& api, int64_t after, bool json) {
  if (!json)
    print_row(header);
  int64_t last = after;
  for (;;) {
    auto r = api.stream("/api/v1/events/stream", last, [&](const sse_event& ev) {
      boost::json::error_code ec;
      auto e = boost::json::parse(ev.data, ec);
      if (ec)
        return true;
      if (auto seq = e.as_object().if_contains("seq"); seq && seq->is_int64())
        last = seq->get_int64();
      if (json)
        std::printf("%s\n", ev.data.c_str());
      else
        print_row(row(e));
      return true;
    });
    // The stream ended (server restart, network): resume after the last
    // event seen, so nothing is missed or printed twice.
    if (!r.ok() && r.status >= 400 && r.status < 500)
      return fail(r);
    if (!r.ok())
      std::fprintf(stderr, "stream interrupted (%s); reconnecting\n", r.error.c_str());
    std::this_thread::sleep_for(std::chrono::seconds(1));
  }
}

} // namespace

int run_events(const std::vector<std::string>& all) {
  auto args = all;
  auto flags = take_client_flags(args);
  bool missing = false;
  auto after_text = take_flag(args, "after", "0", missing);
  auto limit = take_flag(args, "limit", "100", missing);
  bool follow_flag = false;
  for (auto i = args.begin(); i != args.end();)
    if (*i == "--follow" || *i == "-f") {
      follow_flag = true;
      i = args.erase(i);
    } else {
      ++i;
    }
  if (missing || !args.empty())
    return usage("events takes --after SEQ, --limit N, --follow");
  int64_t after = 0;
  try {
    after = std::stoll(after_text);
  } catch (...) {
    return usage("--after must be an event seq");
  }
  api_client api{flags};
  if (follow_flag)
    return follow(api, after, flags.json);
  auto r =
    api.get("/api/v1/events?after=" + url_encode(after_text) + "&limit=" + url_encode(limit));
  if (flags.json || !r.ok())
    return print_json_or_error(r);
  table t(header);
  for (auto& e : r.body.at("items").as_array())
    t.add(row(e));
  std::printf("%s", t.empty() ? "no events\n" : t.render().c_str());
  return 0;
}

int run_workflows(const std::vector<std::string>& all) {
  auto args = all;
  auto flags = take_client_flags(args);
  if (args.size() > 1)
    return usage("workflows takes at most one workflow name");
  api_client api{flags};
  if (args.empty()) {
    auto r = api.get("/api/v1/workflows");
    if (flags.json || !r.ok())
      return print_json_or_error(r);
    table t({"NAME", "VERSION", "STEPS"});
    for (auto& wf : r.body.at("items").as_array()) {
      std::string steps;
      for (auto& s : wf.at("steps").as_array())
        steps += (steps.empty() ? "" : ", ") + text_of(s, "name");
      t.add({text_of(wf, "name"), text_of(wf, "version"), cell(steps, 80)});
    }
    std::printf("%s", t.render().c_str());
    return 0;
  }
  auto r = api.get("/api/v1/workflows/" + url_encode(args[0]));
  if (flags.json || !r.ok())
    return print_json_or_error(r);
  std::printf("%s v%s (versions: %s)\n\n", text_of(r.body, "name").c_str(),
              text_of(r.body, "version").c_str(), text_of(r.body, "versions").c_str());
  table t({"STEP", "WEIGHT", "KIND", "BEST EFFORT", "RETRY POLICY"});
  for (auto& s : r.body.at("steps").as_array())
    t.add({text_of(s, "name"), text_of(s, "weight"), text_of(s, "kind"), text_of(s, "best_effort"),
           cell(text_of(s, "retry_policy"), 80)});
  std::printf("%s", t.render().c_str());
  return 0;
}

} // namespace stepwise::tools
