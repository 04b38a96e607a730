#pragma once

#include <map>
#include <mutex>
#include <string>
#include <unordered_map>
#include <vector>

#include "engine/retention_store.hpp"
#include "engine/sink_store.hpp"
#include "engine/store.hpp"
#include "storage/memory_schedules.hpp"

namespace stepwise {

/// A store in memory: a test double for fast actor tests, nothing more.
/// Durability and store tests run on the real backends. Its sink leases
/// follow the wall clock (`storage/memory_sinks.cpp`).
class memory_store : public store,
                     public sink_store,
                     public retention_store,
                     public definition_store {
public:
  std::string backend() const override;

  sink_store* sinks() override {
    return this;
  }

  retention_store* retention() override {
    return this;
  }

  definition_store* definitions() override {
    return this;
  }

  // -- definition_store (storage/memory_definitions.cpp) ----------------------

  caf::expected<std::vector<stored_definition>> load_definitions() override;

  caf::expected<definition_put> put_definition(const std::string& name,
                                               const std::string& body) override;

  caf::expected<int32_t> delete_definition(const std::string& name) override;

  caf::expected<commit_result> commit(const std::vector<checkpoint>& batch) override;

  caf::expected<admission_round> admit(const admission_limits& limits, time_point now) override;

  caf::expected<std::optional<operation>> load(const std::string& id) override;

  caf::expected<std::optional<operation>> find_by_key(const std::string& key) override;

  caf::expected<std::vector<operation>> load_active_page(
    const std::optional<active_position>& after, size_t limit) override;

  caf::expected<operation_page> list(const list_filter& filter) override;

  caf::expected<std::vector<event>> events_after(int64_t after, size_t limit) override;

  caf::expected<int64_t> last_seq() override;

  caf::expected<std::vector<schedule>> load_schedules() override;

  caf::expected<std::optional<schedule>> load_schedule(const std::string& id) override;

  caf::expected<std::vector<routed_event>> routed_events_after(int64_t after,
                                                               size_t limit) override;

  caf::expected<std::optional<int64_t>> acquire_sink(const std::string& name,
                                                     const std::string& holder, duration ttl,
                                                     sink_start start, bool steal) override;

  caf::error update_sink(const std::string& name, const std::string& holder, duration ttl,
                         const sink_progress& p) override;

  caf::error release_sink(const std::string& name, const std::string& holder) override;

  caf::expected<std::vector<sink_record>> sink_records() override;

  caf::expected<purge_result> purge(const purge_request& req) override;

  caf::expected<int64_t> horizon() override;

  caf::expected<int64_t> size_bytes() override;

  /// Makes every following commit fail until called with false.
  void fail_commits(bool flag);

  /// A row a round reads, with its operation's creation time (µs).
  struct queue_row {
    admission_row row;
    int64_t created_at = 0;
  };

  /// Every operation taking part in admission that has not ended, in
  /// creation order: what a round reads (`admit` plans over these; the
  /// simulation also fills an `admission_mirror` with them).
  std::vector<queue_row> admission_queue();

  /// Writes a round planned elsewhere (its updates; its events get their
  /// `seq`), as `admit` writes its own.
  void write_round(admission_round& round);

private:
  /// Whether `op` may go (engine/retention_store.hpp). Requires `mtx_`.
  bool removable(const operation& op, const purge_request& req, int64_t lowest_cursor) const;

  /// `admission_queue` and `write_round`, with `mtx_` held.
  std::vector<queue_row> queue_locked() const;
  void write_locked(admission_round& round);

  std::mutex mtx_;
  std::unordered_map<std::string, operation> ops_;
  std::map<std::pair<std::string, int32_t>, stored_definition> definitions_;
  std::unordered_map<std::string, std::string> keys_;
  /// Slot `seq - 1` holds event `seq`; a removed one has seq 0.
  std::vector<event> events_;
  int64_t horizon_ = 0;
  std::map<std::string, sink_record> sinks_;
  memory_schedules schedules_;
  bool failing_ = false;
};

} // namespace stepwise
