#include "http/process_metrics.hpp"
#include "http/prometheus.hpp"
#include "http/query.hpp"
#include "http/routes.hpp"

namespace stepwise::http {

namespace {

double load(const std::atomic<uint64_t>& x) {
  return static_cast<double>(x.load(std::memory_order_relaxed));
}

double load(const std::atomic<int64_t>& x) {
  return static_cast<double>(x.load(std::memory_order_relaxed));
}

void counter(prometheus_writer& w, const char* name, const char* help,
             const std::atomic<uint64_t>& x) {
  w.family(name, "counter", help);
  w.sample(name, {}, load(x));
}

void gauge(prometheus_writer& w, const char* name, const char* help, double value) {
  w.family(name, "gauge", help);
  w.sample(name, {}, value);
}

// The fire lateness of this process, and per schedule its durable counts
// (those of every process sharing the store): one list call to the
// schedule keeper, which holds them in memory.
void render_schedule_metrics(prometheus_writer& w, const route_context& ctx) {
  auto& m = ctx.eng.stats();
  w.family("stepwise_schedule_fire_lateness_seconds", "histogram",
           "How late a schedule's fire started its operation, from its fire time "
           "(fires this process started).");
  w.histogram("stepwise_schedule_fire_lateness_seconds", {}, m.schedule_fire_lateness_seconds);
  auto views = ctx.eng.list_schedules();
  w.family("stepwise_schedule_fires_total", "counter",
           "Fires of the schedule that started an operation (durable, all processes).");
  if (views)
    for (auto& v : *views)
      w.sample("stepwise_schedule_fires_total", {{"schedule", v.schedule.id}},
               static_cast<double>(v.schedule.fired));
  w.family("stepwise_schedule_skips_total", "counter",
           "Fires of the schedule skipped, by overlap or missed (durable, all processes).");
  if (views)
    for (auto& v : *views)
      w.sample("stepwise_schedule_skips_total", {{"schedule", v.schedule.id}},
               static_cast<double>(v.schedule.skipped));
}

std::string render(const route_context& ctx) {
  auto& m = ctx.eng.stats();
  prometheus_writer w;
  counter(w, "stepwise_operations_started_total", "Operations created.", m.operations_started);
  w.family("stepwise_operations_finished_total", "counter",
           "Operations that reached a terminal state, by state.");
  w.sample("stepwise_operations_finished_total", {{"state", "succeeded"}},
           load(m.operations_succeeded));
  w.sample("stepwise_operations_finished_total", {{"state", "failed"}}, load(m.operations_failed));
  w.sample("stepwise_operations_finished_total", {{"state", "canceled"}},
           load(m.operations_canceled));
  w.family("stepwise_operations_active", "gauge",
           "Non-terminal operations of this process: running in memory "
           "(live) or passivated until their wake-up time (sleeping).");
  w.sample("stepwise_operations_active", {{"state", "live"}}, load(m.operations_live));
  w.sample("stepwise_operations_active", {{"state", "sleeping"}}, load(m.operations_sleeping));
  counter(w, "stepwise_steps_started_total", "Step attempts started.", m.steps_started);
  counter(w, "stepwise_steps_succeeded_total", "Step attempts that completed.", m.steps_succeeded);
  counter(w, "stepwise_steps_failed_total", "Step attempts that failed permanently.",
          m.steps_failed);
  counter(w, "stepwise_steps_retried_total", "Step attempts that scheduled a retry.",
          m.steps_retried);
  counter(w, "stepwise_steps_timed_out_total", "Step attempts that ran past their timeout.",
          m.steps_timed_out);
  w.family("stepwise_step_duration_seconds", "histogram", "Run time of one step attempt.");
  w.histogram("stepwise_step_duration_seconds", {}, m.step_duration_seconds);
  gauge(w, "stepwise_timers_pending",
        "Timers armed and not yet fired (retries, sleeps, deadlines).", load(m.timers_pending));
  gauge(w, "stepwise_attempts_running",
        "Step attempts running now (a drain after SIGTERM waits for them).",
        load(m.attempts_running));
  counter(w, "stepwise_store_commits_total", "Store transactions committed.", m.commits);
  counter(w, "stepwise_store_commit_errors_total", "Store transactions that failed.",
          m.commit_errors);
  counter(w, "stepwise_operations_claimed_total",
          "Operations taken over: orphans of processes whose lease ended, or given up by others.",
          m.operations_claimed);
  counter(w, "stepwise_operations_released_total",
          "Operations given up to other processes sharing the store (more than this one's share).",
          m.operations_released);
  counter(w, "stepwise_commands_read_total",
          "Control requests other servers stored for this one, read to be carried out.",
          m.commands_read);
  counter(w, "stepwise_notifications_total",
          "Notifications this server heard from the store (other servers' wake-ups).",
          m.notifications);
  counter(w, "stepwise_notifications_lost_total",
          "Times the store's listening connection was opened again: notifications sent "
          "meanwhile were lost, and what they said was read from the store instead.",
          m.notifications_lost);
  counter(w, "stepwise_leases_lost_total", "Times this process lost its lease and joined again.",
          m.leases_lost);
  gauge(w, "stepwise_tasks_ready", "Tasks of task steps ready in their queues, not yet taken.",
        load(m.tasks_ready));
  gauge(w, "stepwise_tasks_taken", "Tasks a worker holds now.", load(m.tasks_taken));
  gauge(w, "stepwise_task_pollers", "Workers' long polls waiting for a task now.",
        load(m.task_pollers));
  counter(w, "stepwise_tasks_handed_total", "Tasks handed to workers.", m.tasks_handed);
  counter(w, "stepwise_task_answers_total", "Workers' answers taken (complete or fail).",
          m.tasks_answered);
  counter(w, "stepwise_tasks_timed_out_total",
          "Task attempts ended because no worker took them or their worker went silent.",
          m.tasks_timed_out);
  counter(w, "stepwise_task_answers_stale_total",
          "Answers and heartbeats refused: their attempt was no longer current.",
          m.tasks_stale_answers);
  w.family("stepwise_task_wait_seconds", "histogram",
           "How long a task waited in its queue, from ready to taken by a worker.");
  w.histogram("stepwise_task_wait_seconds", {}, m.task_wait_seconds);
  w.family("stepwise_store_commit_duration_seconds", "histogram",
           "Latency of one store commit (group commit of many checkpoints).");
  w.histogram("stepwise_store_commit_duration_seconds", {}, m.commit_latency_seconds);
  w.family("stepwise_store_commit_batch_size", "histogram",
           "Checkpoints written per store commit.");
  w.histogram("stepwise_store_commit_batch_size", {}, m.commit_batch_size);
  ctx.requests.render(w);
  gauge(w, "stepwise_http_waiting_requests", "Long polls and event streams open right now.",
        static_cast<double>(ctx.hub->waiting()));
  if (ctx.connections)
    gauge(w, "stepwise_http_connections",
          "HTTP connections open right now (idle, slow and streaming clients too).",
          static_cast<double>(ctx.connections()));
  auto [cache_reads, store_reads] = ctx.hub->read_counts();
  w.family("stepwise_http_event_reads_total", "counter",
           "Event reads of long polls and streams, by where they were "
           "answered from (the in-memory tail or the store).");
  w.sample("stepwise_http_event_reads_total", {{"source", "cache"}},
           static_cast<double>(cache_reads));
  w.sample("stepwise_http_event_reads_total", {{"source", "store"}},
           static_cast<double>(store_reads));
  auto admission = ctx.eng.admission();
  w.family("stepwise_workflow_operations_queued", "gauge",
           "Operations waiting for their serialization key or a slot of their "
           "workflow's limit (all processes; as of the last admission round).");
  for (auto& [wf, c] : admission)
    w.sample("stepwise_workflow_operations_queued", {{"workflow", wf}},
             static_cast<double>(c.queued));
  w.family("stepwise_workflow_operations_running", "gauge",
           "Admitted operations not yet ended, of workflows with a key or limit.");
  for (auto& [wf, c] : admission)
    w.sample("stepwise_workflow_operations_running", {{"workflow", wf}},
             static_cast<double>(c.running));
  gauge(w, "stepwise_ready", "1 when recovery is done and the store answers.",
        ctx.eng.ready() ? 1 : 0);
  gauge(w, "stepwise_leader",
        "1 when this process runs retention passes and schedule fires for every "
        "process on the store (alone on it, always; shared, while its lease is the oldest).",
        static_cast<double>(m.leader.load()));
  gauge(w, "stepwise_commit_backlog",
        "Checkpoints waiting to be written; past --max-backlog new operations "
        "are refused (503 overloaded).",
        static_cast<double>(ctx.eng.commit_backlog()));
  counter(w, "stepwise_retention_operations_removed_total",
          "Ended operations retention removed (this process; --retention).",
          m.retention_operations_removed);
  counter(w, "stepwise_retention_events_removed_total",
          "Events of those operations retention removed (this process).",
          m.retention_events_removed);
  counter(w, "stepwise_retention_errors_total",
          "Retention batches or store looks that failed (tried again next pass).",
          m.retention_errors);
  w.family("stepwise_retention_batch_duration_seconds", "histogram",
           "How long each retention batch took (one store transaction).");
  w.histogram("stepwise_retention_batch_duration_seconds", {}, m.retention_batch_seconds);
  // Read now (an HTTP worker may block), retention on or off; a failed
  // read leaves its sample out rather than show a stale value.
  w.family("stepwise_retention_horizon", "gauge",
           "Highest event seq retention removed (all processes): reading events "
           "from before it answers 410 gone.");
  if (auto h = ctx.eng.event_horizon())
    w.sample("stepwise_retention_horizon", {}, static_cast<double>(*h));
  w.family("stepwise_store_bytes", "gauge",
           "Bytes the store takes on disk (SQLite: file and write-ahead log; "
           "PostgreSQL: the database), freed pages included.");
  if (auto b = ctx.eng.store_bytes())
    w.sample("stepwise_store_bytes", {}, static_cast<double>(*b));
  auto backend = ctx.eng.store_backend();
  w.family("stepwise_build_info", "gauge",
           "Always 1; labels name the version and the store backend.");
  w.sample("stepwise_build_info", {{"version", STEPWISE_VERSION}, {"store", backend}}, 1);
  render_schedule_metrics(w, ctx);
  render_sink_metrics(w, ctx);
  render_process_metrics(w);
  return w.text();
}

} // namespace

void add_metrics_routes(router& r, const route_context& ctx) {
  const router* rp = &r;
  r.add("GET", "/metrics", [rp, ctx](request& rq, server_response& res) {
    if (auto err = query{rq.raw.params}.only({}))
      return rp->write(rq.raw.path, res, *err);
    res.status = 200;
    res.set_content(render(ctx), "text/plain; version=0.0.4; charset=utf-8");
  });
}

} // namespace stepwise::http
