#include <cstdio>
#include <memory>
#include <thread>

#include "tools/api_client.hpp"
#include "tools/cli.hpp"
#include "tools/client_common.hpp"
#include "tools/table.hpp"

namespace stepwise::tools {

namespace {

std::string detail(const boost::json::value& e) {
  std::string out;
  // `by` first: who did it stays shown when a long error is cut.
  for (auto key : {"by", "attempt", "state", "error"}) {
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

// Says a 410 in the flags' words too: the server names the query parameter.
int fail_events(api_result r) {
  if (r.status == 410 && r.body.is_object())
    if (auto* err = r.body.as_object().if_contains("error"); err && err->is_object())
      if (auto* h = err->as_object().if_contains("horizon"); h && h->is_int64())
        r.error += "; run again with --after " + std::to_string(h->get_int64())
                   + " (or --after 0: the log now starts there)";
  return fail(r);
}

int follow(api_client& api, int64_t after, const std::string& filter, bool json) {
  if (!json)
    print_row(header);
  int64_t last = after;
  for (;;) {
    auto r = api.stream("/api/v1/events/stream?" + filter, last, [&](const sse_event& ev) {
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
      return fail_events(r);
    if (!r.ok())
      std::fprintf(stderr, "stream interrupted (%s); reconnecting\n", r.error.c_str());
    std::this_thread::sleep_for(std::chrono::seconds(1));
  }
}

/// `events`' arguments.
struct events_args {
  int64_t after = 0;
  std::string limit = "100";
  bool follow = false;
  std::string operation;
  std::string workflow;
  std::vector<std::string> labels;

  /// The filter's query parameters, each followed by '&'.
  std::string filter() const {
    std::string q;
    if (!operation.empty())
      q += "operation=" + url_encode(operation) + "&";
    if (!workflow.empty())
      q += "workflow=" + url_encode(workflow) + "&";
    for (auto& l : labels)
      q += "label=" + url_encode(l) + "&";
    return q;
  }
};

int events(api_client& api, const events_args& a, bool json) {
  if (a.follow)
    return follow(api, a.after, a.filter(), json);
  auto r = api.get("/api/v1/events?" + a.filter() + "after=" + std::to_string(a.after)
                   + "&limit=" + url_encode(a.limit));
  if (!r.ok())
    return fail_events(r);
  if (json)
    return print_json_or_error(r);
  table t(header);
  for (auto& e : r.body.at("items").as_array())
    t.add(row(e));
  std::printf("%s", t.empty() ? "no events\n" : t.render().c_str());
  return 0;
}

} // namespace

void add_events(CLI::App& root, cli_run& run) {
  auto* ev = root.add_subcommand("events", "the event log, oldest first; --follow streams it");
  auto a = std::make_shared<events_args>();
  ev->add_option("--after", a->after, "events after this seq (default 0: from the start)")
    ->type_name("SEQ");
  ev->add_option("--limit", a->limit, "at most N (default 100)")->type_name("N");
  ev->add_flag("-f,--follow", a->follow, "keep printing new events as they come");
  ev->add_option("--operation", a->operation, "only this operation's events")->type_name("ID");
  ev->add_option("--workflow", a->workflow, "only the events of this workflow's operations")
    ->type_name("NAME");
  ev->add_option("--label", a->labels,
                 "only the events of operations with this label (repeat: all of them)")
    ->type_name("KEY=VALUE");
  ev->callback([&run, a] {
    api_client api{run.flags};
    run.exit = events(api, *a, run.flags.json);
  });
}

} // namespace stepwise::tools
