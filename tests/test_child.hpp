#pragma once

// The programs the tests run as child processes. They are one executable,
// `test_child NAME ARGS...` (tests/test_child.cpp), for CI's time: eight
// programs, each linking the whole engine, took 80 CPU s to build under the
// sanitizers, one takes 22. Each runs with argv[0] = NAME and returns its
// exit status.
int admission_child(int argc, char** argv);
int crash_child(int argc, char** argv);
int fanout_child(int argc, char** argv);
int lease_child(int argc, char** argv);
int outbox_child(int argc, char** argv);
int schedule_child(int argc, char** argv);
int version_child(int argc, char** argv);
int wait_child(int argc, char** argv);
