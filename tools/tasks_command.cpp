// `stepwise tasks`: try task steps by hand, as a worker would (poll,
// heartbeat, complete, fail), and see the queues.

#include <cstdio>
#include <memory>

#include "engine/duration_text.hpp"
#include "tools/api_client.hpp"
#include "tools/cli.hpp"
#include "tools/client_common.hpp"
#include "tools/table.hpp"

namespace stepwise::tools {

namespace {

constexpr const char* tasks_path = "/api/v1/tasks";

struct poll_args {
  std::string queue;
  std::string worker = "cli";
  int max = 1;
  std::string wait = "20s";
};

int poll(api_client& api, const poll_args& a, bool json) {
  auto wait = parse_duration_text(a.wait);
  if (!wait || *wait > std::chrono::seconds(60))
    return usage_error("--wait must be a duration of at most 60s, such as 20s (not '" + a.wait
                       + "')");
  boost::json::object body{
    {"queue", a.queue}, {"worker", a.worker}, {"max", a.max}, {"wait", a.wait}};
  auto r = api.post(std::string(tasks_path) + "/poll", boost::json::serialize(body));
  if (json || !r.ok())
    return print_json_or_error(r);
  auto& tasks = r.body.at("tasks").as_array();
  if (tasks.empty()) {
    std::printf("no task on queue %s within %s\n", a.queue.c_str(), a.wait.c_str());
    return 0;
  }
  for (auto& t : tasks) {
    std::printf("task %s\n", text_of(t, "token").c_str());
    std::printf("  operation  %s (%s), step %s, attempt %s\n", text_of(t, "operation_id").c_str(),
                text_of(t, "workflow").c_str(), text_of(t, "step").c_str(),
                text_of(t, "attempt").c_str());
    std::printf("  input      %s\n", cell(text_of(t, "input"), 200).c_str());
    std::printf("  data       %s\n", cell(text_of(t, "data"), 200).c_str());
    auto deadline = text_of(t, "deadline");
    auto beat = text_of(t, "heartbeat_timeout");
    std::printf("  deadline   %s; %s\n", deadline == "-" ? "none" : deadline.c_str(),
                beat == "-" ? "no heartbeat needed"
                            : ("a heartbeat at least every " + beat).c_str());
  }
  auto first = text_of(tasks.front(), "token");
  std::printf("\nanswer it: stepwise tasks complete %s --data '{...}'\n"
              "       or: stepwise tasks fail %s --error 'what went wrong'\n",
              first.c_str(), first.c_str());
  return 0;
}

struct answer_args {
  std::string token;
  std::string data = "{}";
  std::string error;
  std::string retry_after;
  bool non_retryable = false;
};

int answer(api_client& api, const answer_args& a, const char* verb, bool json) {
  boost::json::object body;
  if (std::string(verb) == "complete") {
    boost::json::error_code ec;
    auto data = boost::json::parse(a.data, ec);
    if (ec || !data.is_object())
      return usage_error("--data must be a JSON object, e.g. '{\"charged\":true}'");
    body["data"] = std::move(data);
  } else if (std::string(verb) == "fail") {
    body["error"] = a.error;
    if (!a.retry_after.empty())
      body["retry_after"] = a.retry_after;
    if (a.non_retryable)
      body["non_retryable"] = true;
  }
  auto r = api.post(std::string(tasks_path) + "/" + url_encode(a.token) + "/" + verb,
                    boost::json::serialize(body));
  if (json || !r.ok())
    return print_json_or_error(r);
  if (std::string(verb) == "heartbeat")
    std::printf("heartbeat taken%s\n", r.body.at("cancel_requested").as_bool()
                                         ? ": the operation no longer waits, stop the task"
                                         : "");
  else
    std::printf("%s: the operation applies it\n",
                std::string(verb) == "complete" ? "completed" : "failed");
  return 0;
}

int queues(api_client& api, bool json) {
  auto r = api.get(std::string(tasks_path) + "/queues");
  if (json || !r.ok())
    return print_json_or_error(r);
  table t({"QUEUE", "READY", "TAKEN", "POLLING", "OLDEST READY (ms)", "WORKERS"});
  for (auto& q : r.body.at("items").as_array()) {
    std::string workers;
    for (auto& w : q.at("workers").as_array())
      workers += (workers.empty() ? "" : ", ") + text_of(w, "name");
    t.add({text_of(q, "name"), text_of(q, "ready"), text_of(q, "taken"), text_of(q, "pollers"),
           text_of(q, "oldest_age_ms"), cell(workers.empty() ? "-" : workers, 60)});
  }
  if (t.empty())
    std::printf("no task queue on this server (no task ready, taken or polled for)\n");
  else
    std::printf("%s", t.render().c_str());
  return 0;
}

} // namespace

void add_tasks(CLI::App& root, cli_run& run) {
  auto* cmd = root.add_subcommand(
    "tasks", "task steps, by hand as a worker would (poll, heartbeat, complete, fail) and queues");
  cmd->require_subcommand(1);
  auto api = [&run] { return api_client{run.flags}; };
  auto* pl = cmd->add_subcommand("poll", "take the oldest ready tasks of a queue");
  auto pa = std::make_shared<poll_args>();
  pl->add_option("--queue", pa->queue, "the queue")->required()->type_name("Q");
  pl->add_option("--worker", pa->worker, "your name in the queue's workers (default cli)")
    ->type_name("W");
  pl->add_option("--max", pa->max, "at most N tasks (1 to 100, default 1)")->type_name("N");
  pl->add_option("--wait", pa->wait, "wait this long for one (default 20s, at most 60s)")
    ->type_name("D");
  pl->callback([&run, api, pa] {
    auto a = api();
    run.exit = poll(a, *pa, run.flags.json);
  });
  struct verb {
    const char* name;
    const char* help;
  };
  for (auto v : {verb{"heartbeat", "tell the task's attempt you still work on it"},
                 verb{"complete", "complete the task: --data is merged into the operation's data"},
                 verb{"fail", "fail the task: the step's retry policy decides what comes next"}}) {
    auto* sub = cmd->add_subcommand(v.name, v.help);
    auto aa = std::make_shared<answer_args>();
    sub->add_option("TOKEN", aa->token, "the task's token, as poll printed it")->required();
    if (std::string(v.name) == "complete")
      sub->add_option("--data", aa->data, "a JSON object (default {})")->type_name("JSON");
    if (std::string(v.name) == "fail") {
      sub->add_option("--error", aa->error, "what went wrong")->required()->type_name("TEXT");
      sub->add_option("--retry-after", aa->retry_after, "try again after D (e.g. 30s)")
        ->type_name("D");
      sub->add_flag("--non-retryable", aa->non_retryable, "fail the step for good");
    }
    sub->callback([&run, api, aa, name = v.name] {
      auto a = api();
      run.exit = answer(a, *aa, name, run.flags.json);
    });
  }
  cmd->add_subcommand("queues", "the queues: ready and taken tasks, oldest age, workers")
    ->callback([&run, api] {
      auto a = api();
      run.exit = queues(a, run.flags.json);
    });
}

} // namespace stepwise::tools
