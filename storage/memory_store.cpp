#include "storage/memory_store.hpp"

#include <algorithm>
#include <tuple>

#include "engine/errc.hpp"
#include "engine/time.hpp"

namespace stepwise {

std::string memory_store::backend() const {
  return "memory";
}

caf::expected<commit_result> memory_store::commit(const std::vector<checkpoint>& batch) {
  std::lock_guard<std::mutex> guard{mtx_};
  if (failing_)
    return make_error(errc::store_failure, "memory store: commit failed (injected)");
  commit_result res;
  for (auto& cp : batch) {
    auto status = write_status::ok;
    if (cp.sched) {
      if (!schedules_.write(cp))
        status = cp.what == checkpoint::kind::schedule && cp.sched->revision == 1
                   ? write_status::duplicate_key
                   : write_status::stale_revision;
    } else if (cp.what == checkpoint::kind::create) {
      auto& op = *cp.op;
      if (!op.idempotency_key.empty() && keys_.count(op.idempotency_key))
        status = write_status::duplicate_key;
      else {
        if (!op.idempotency_key.empty())
          keys_[op.idempotency_key] = op.id;
        ops_[op.id] = op;
      }
    } else {
      auto& op = *cp.op;
      auto i = ops_.find(op.id);
      if (i == ops_.end() || i->second.revision != op.revision - 1) {
        status = write_status::stale_revision;
      } else {
        // As the SQL stores: what admission rounds own stays, but an
        // operation that takes part and leaves an end state queues again.
        auto adm = i->second.admission;
        auto blocked = std::move(i->second.blocked_by);
        if (is_terminal(i->second.state) && !is_terminal(op.state) && adm != admission::none) {
          adm = admission::queued;
          blocked.clear();
        }
        i->second = op;
        i->second.admission = adm;
        i->second.blocked_by = std::move(blocked);
      }
    }
    res.status.push_back(status);
    if (status != write_status::ok)
      continue;
    for (auto e : cp.events) {
      e.seq = static_cast<int64_t>(events_.size()) + 1;
      events_.push_back(e);
      res.events.emplace_back(std::move(e));
    }
  }
  return res;
}

std::vector<memory_store::queue_row> memory_store::queue_locked() const {
  std::vector<const operation*> taking_part;
  for (auto& kv : ops_)
    if (kv.second.admission != admission::none && !is_terminal(kv.second.state))
      taking_part.push_back(&kv.second);
  std::sort(taking_part.begin(), taking_part.end(), [](auto* a, auto* b) {
    return a->created_at != b->created_at ? a->created_at < b->created_at : a->id < b->id;
  });
  std::vector<queue_row> rows;
  for (auto* op : taking_part)
    rows.push_back(
      {{op->id, op->workflow, op->key, op->admission, op->state, op->blocked_by, op->revision},
       to_micros(op->created_at)});
  return rows;
}

void memory_store::write_locked(admission_round& round) {
  for (auto& u : round.updates) {
    auto& op = ops_.at(u.id);
    op.admission = u.admission;
    op.blocked_by = u.blocked_by;
  }
  for (auto& e : round.events) {
    e.seq = static_cast<int64_t>(events_.size()) + 1;
    events_.push_back(e);
  }
}

std::vector<memory_store::queue_row> memory_store::admission_queue() {
  std::lock_guard<std::mutex> guard{mtx_};
  return queue_locked();
}

void memory_store::write_round(admission_round& round) {
  std::lock_guard<std::mutex> guard{mtx_};
  write_locked(round);
}

caf::expected<admission_round> memory_store::admit(const admission_limits& limits, time_point now) {
  std::lock_guard<std::mutex> guard{mtx_};
  if (failing_)
    return make_error(errc::store_failure, "memory store: admission failed (injected)");
  std::vector<admission_row> rows;
  for (auto& r : queue_locked())
    rows.push_back(std::move(r.row));
  auto round = plan_round(rows, limits, now);
  write_locked(round);
  return round;
}

caf::expected<std::optional<operation>> memory_store::load(const std::string& id) {
  std::lock_guard<std::mutex> guard{mtx_};
  auto i = ops_.find(id);
  if (i == ops_.end())
    return std::optional<operation>{};
  return std::optional<operation>{i->second};
}

caf::expected<std::optional<operation>> memory_store::find_by_key(const std::string& key) {
  std::lock_guard<std::mutex> guard{mtx_};
  auto k = keys_.find(key);
  if (k == keys_.end())
    return std::optional<operation>{};
  return std::optional<operation>{ops_.at(k->second)};
}

caf::expected<std::vector<operation>> memory_store::load_active_page(
  const std::optional<active_position>& after, size_t limit) {
  std::lock_guard<std::mutex> guard{mtx_};
  auto key = [](const operation& op) { return std::tie(op.created_at, op.id); };
  std::vector<const operation*> found;
  for (auto& kv : ops_)
    if (!is_terminal(kv.second.state)
        && (!after || key(kv.second) > std::tie(after->created_at, after->id)))
      found.push_back(&kv.second);
  std::sort(found.begin(), found.end(),
            [&](const operation* a, const operation* b) { return key(*a) < key(*b); });
  std::vector<operation> out;
  for (size_t i = 0; i < found.size() && i < limit; ++i)
    out.push_back(*found[i]);
  return out;
}

namespace {

// Whether `op` passes the filters of `f` (all but the page).
bool listed(const operation& op, const list_filter& f) {
  auto has_label = [&](const std::pair<std::string, std::string>& l) {
    auto i = op.labels.find(l.first);
    return i != op.labels.end() && i->second == l.second;
  };
  return (!f.state || op.state == *f.state) && (f.workflow.empty() || op.workflow == f.workflow)
         && (f.parent.empty() || op.parent_id == f.parent)
         && (f.schedule.empty() || op.schedule_id == f.schedule)
         && (f.idempotency_key.empty() || op.idempotency_key == f.idempotency_key)
         && (!f.created_after || op.created_at > *f.created_after)
         && (!f.created_before || op.created_at < *f.created_before)
         && std::all_of(f.labels.begin(), f.labels.end(), has_label);
}

} // namespace

caf::expected<operation_page> memory_store::list(const list_filter& f) {
  std::lock_guard<std::mutex> guard{mtx_};
  std::vector<const operation*> all;
  for (auto& kv : ops_)
    if (listed(kv.second, f))
      all.push_back(&kv.second);
  std::sort(all.begin(), all.end(), [](auto* a, auto* b) {
    return a->created_at != b->created_at ? a->created_at > b->created_at : a->id > b->id;
  });
  size_t start = 0;
  if (!f.cursor.empty()) {
    while (start < all.size() && all[start]->id != f.cursor)
      ++start;
    ++start;
  }
  operation_page page;
  for (size_t i = start; i < all.size() && page.items.size() < f.limit; ++i)
    page.items.push_back(*all[i]);
  if (start + page.items.size() < all.size() && !page.items.empty())
    page.next_cursor = page.items.back().id;
  return page;
}

caf::expected<std::vector<event>> memory_store::events_after(int64_t after, size_t limit) {
  std::lock_guard<std::mutex> guard{mtx_};
  std::vector<event> out;
  for (auto i = static_cast<size_t>(std::max<int64_t>(after, 0));
       i < events_.size() && out.size() < limit; ++i)
    if (events_[i].seq != 0)
      out.push_back(events_[i]);
  return out;
}

caf::expected<int64_t> memory_store::last_seq() {
  std::lock_guard<std::mutex> guard{mtx_};
  return static_cast<int64_t>(events_.size());
}

caf::expected<std::vector<schedule>> memory_store::load_schedules() {
  std::lock_guard<std::mutex> guard{mtx_};
  return schedules_.all();
}

caf::expected<std::optional<schedule>> memory_store::load_schedule(const std::string& id) {
  std::lock_guard<std::mutex> guard{mtx_};
  return schedules_.find(id);
}

void memory_store::fail_commits(bool flag) {
  std::lock_guard<std::mutex> guard{mtx_};
  failing_ = flag;
}

} // namespace stepwise
