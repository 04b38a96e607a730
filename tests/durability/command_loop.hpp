#pragma once

#include <iosfwd>

#include "engine/engine.hpp"

/// The line protocol by which a durability test drives a child process
/// (its stdin) and reads the answers (its stdout), so that the test, not
/// the child, decides when each request is sent and when the child is
/// killed. Every answer is one line starting with "> ".
///
///   start WORKFLOW INPUT_JSON           > ok OP_ID | > err CODE MESSAGE
///   signal OP NAME SIGNAL_ID JSON       > accepted | > duplicate | > err CODE MESSAGE
///                                       (SIGNAL_ID "-": none)
///   await OP EVENT_TYPE STEP            > seen | > timeout   (STEP "-": any; 60 s)
///   finish                              the loop returns (no answer)
///
/// The loop first answers "> ready OWNER" (OWNER "-" on a store of one
/// process) once the engine runs.
namespace stepwise::test {

/// Serves commands from `in` until `finish` or the end of `in`.
void serve_commands(engine& eng, std::istream& in, std::ostream& out);

} // namespace stepwise::test
