#pragma once

#include <cstddef>

#include <boost/json.hpp>
#include <caf/error.hpp>

#include "engine/engine.hpp"
#include "engine/store.hpp"

namespace stepwise::bench {

/// Writes `n` ended operations with their events straight into `st`, as a
/// store that has served for a while holds them (to see that the engine stays as
/// fast as history grows): all `bench_steps` but one in 10,000 `demo`, 1 % failed, five steps and
/// twelve events each, created over the 30 days before now. In batches of
/// 1,000 operations per commit.
caf::error prefill(store& st, size_t n);

/// Times the operation list as the console and the API read it (median and
/// max over 20 reads each, in ms): the first page, a filter by state
/// (`failed`: few match) and by workflow (`demo`: few match).
boost::json::object list_timings(engine& eng);

} // namespace stepwise::bench
