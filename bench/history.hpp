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
/// twelve events each, created over the 30 days before now, labeled (see
/// history.cpp), one in 10 with an idempotency key. In batches of 1,000
/// operations per commit.
caf::error prefill(store& st, size_t n);

/// Times the operation list as the console and the API read it (median and
/// max over 20 reads each, in ms): the first page, a filter by state
/// (`failed`: few match), by workflow (`demo`: few match), by label (a
/// runtime: 1 in 1,000; with its location too; a tenant: 1 in 10,000), by
/// a day of creation time (alone and with the runtime label), by
/// idempotency key; and the events of one operation of the `prefilled`
/// (its timeline, amid everyone's).
boost::json::object list_timings(engine& eng, size_t prefilled);

} // namespace stepwise::bench
