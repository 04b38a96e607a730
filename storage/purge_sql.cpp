#include "storage/purge_sql.hpp"

#include <chrono>

#include "engine/schedule.hpp"

namespace stepwise {

namespace {

// Repeated term by term in the partial indexes' conditions (SQLite uses
// such an index only then).
std::string ended(const std::string& alias) {
  return "(" + alias + ".state = 'succeeded' OR " + alias + ".state = 'failed' OR " + alias
         + ".state = 'canceled')";
}

std::string live(const std::string& alias) {
  return "(" + alias + ".state <> 'succeeded' AND " + alias + ".state <> 'failed' AND " + alias
         + ".state <> 'canceled')";
}

std::string deprovisioning_of_o(const purge_dialect& d, const std::string& state_cond) {
  return "SELECT 1 FROM operations d WHERE d.workflow = 'deprovision_runtime' AND "
         + d.provision_of("d") + " = " + d.outer_id + " AND " + state_cond;
}

} // namespace

std::string purge_candidates_sql(const purge_dialect& d) {
  std::string wf = d.workflow;
  auto grace_us = std::chrono::duration_cast<std::chrono::microseconds>(schedule_grace).count();
  auto at = "o." + std::string{d.ended_at};
  return "SELECT o.id, o.revision, " + at + " FROM operations o" + std::string{d.ended_index}
         + " WHERE " + ended("o") + " AND " + at + " < " + d.ended_before + " AND (" + at
         + ", o.id) > (" + d.after_at + ", " + d.after_id + ") AND (" + wf
         + " = '' OR o.workflow = " + wf
         + ")"
         // A parent with a live child.
         + " AND NOT EXISTS (SELECT 1 FROM operations c WHERE c.parent_id = o.id AND " + live("c")
         + ")"
         // A child whose live parent reads its result.
         + " AND (o.parent_id IS NULL OR NOT EXISTS (SELECT 1 FROM operations q WHERE q.id = "
           "o.parent_id AND "
         + live("q")
         + "))"
         // A provisioning a deprovisioning still runs on.
         + " AND NOT EXISTS (" + deprovisioning_of_o(d, live("d"))
         + ")"
         // A provisioning whose infrastructure exists.
         + " AND (o.workflow <> 'provision_runtime' OR o.state <> 'succeeded' OR EXISTS ("
         + deprovisioning_of_o(d, "d.state = 'succeeded'")
         + "))"
         // A deprovisioning whose provisioning is stored.
         + " AND (o.workflow <> 'deprovision_runtime' OR o.state <> 'succeeded' OR NOT EXISTS "
           "(SELECT 1 FROM operations p WHERE p.id = "
         + d.provision_of("o")
         + "))"
         // A fire's operation that a restart may fire again (schedule_grace).
         + " AND (o.schedule_id IS NULL OR o.created_at < " + d.ended_before + " - "
         + std::to_string(grace_us)
         + ")"
         // Events a sink has not delivered.
         + " AND NOT EXISTS (SELECT 1 FROM events e WHERE e.operation_id = o.id AND e.seq > "
           "COALESCE((SELECT MIN(cursor) FROM sink_cursors), 9223372036854775807))"
           " ORDER BY "
         + at + ", o.id LIMIT " + d.limit;
}

} // namespace stepwise
