#include "storage/purge_batches.hpp"

#include <cstdint>

namespace stepwise {

caf::expected<purge_result> purge_batches(
  retention_store& st, purge_request req,
  const std::function<void(const purge_result&)>& progress) {
  // A dry run removes nothing, so its next batch would be the same one:
  // it looks at everything at once instead.
  if (req.dry_run)
    req.max_operations = SIZE_MAX;
  purge_result total;
  for (;;) {
    auto batch = st.purge(req);
    if (!batch)
      return std::move(batch.error());
    total.operations += batch->operations;
    total.events += batch->events;
    total.horizon = batch->horizon;
    for (auto& id : batch->ids)
      if (total.ids.size() < purge_result::max_ids)
        total.ids.push_back(id);
    if (progress)
      progress(total);
    // The next batch resumes after this one: what this one had to keep
    // is not read again.
    if (req.dry_run || batch->found < req.max_operations)
      return total;
    req.after = batch->last;
  }
}

} // namespace stepwise
