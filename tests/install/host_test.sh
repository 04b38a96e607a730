#!/bin/sh
# Installs stepwise into a temporary prefix, builds examples/host against it
# with pkg-config alone, runs it and checks that an operation of the host's
# workflow succeeds over HTTP (through the installed CLI) and through the
# host's typed request. Usage: host_test.sh BUILD_DIR SOURCE_DIR
set -eu
build=$(cd "$1" && pwd)
src=$(cd "$2" && pwd)
work=$(mktemp -d)
pid=
cleanup() {
  [ -n "$pid" ] && kill -9 "$pid" 2>/dev/null || true
  rm -rf "$work"
}
trap cleanup EXIT
fail() {
  echo "host_test: $*" >&2
  [ -f "$work/host.log" ] && sed 's/^/  host: /' "$work/host.log" >&2
  exit 1
}

meson install -C "$build" --no-rebuild --quiet --destdir "$work/root" >/dev/null
pc=$(find "$work/root" -name stepwise.pc)
[ -n "$pc" ] || fail "no stepwise.pc installed"
export PKG_CONFIG_PATH="$(dirname "$pc")"
flags=$(pkg-config --cflags --libs stepwise-serve)
echo "pkg-config: $flags"
case "$flags" in *"$src"* | *"$build"*) fail "the flags name the source or build tree" ;; esac
stepwise=$(find "$work/root" -path '*/bin/stepwise' -type f)
[ -x "$stepwise" ] || fail "no bin/stepwise installed"

# The unit file, where systemd's checker is at hand (it wants ExecStart's
# program to exist: the installed one, under the temporary root).
unit=$(find "$work/root" -name stepwise.service)
[ -n "$unit" ] || fail "no stepwise.service installed"
if command -v systemd-analyze >/dev/null; then
  sed "s|^ExecStart=[^ ]*|ExecStart=$stepwise|" "$unit" >"$work/stepwise.service"
  # It only warns of an unknown key: any word from it is a failure.
  said=$(systemd-analyze verify "$work/stepwise.service" 2>&1) && [ -z "$said" ] ||
    fail "systemd-analyze verify: $said"
  echo "systemd-analyze verify: ok"
fi

# Every installed header compiles alone against the installed tree (what
# it includes is installed too, and it includes what it uses), two at a
# time.
inc=$(find "$work/root" -type d -path '*/include/stepwise' | head -n 1)
[ -n "$inc" ] || fail "no include/stepwise installed"
cflags=$(pkg-config --cflags stepwise-serve)
(cd "$inc" && find . -name '*.hpp' | sort | sed 's|^\./||') >"$work/headers"
# shellcheck disable=SC2016
xargs -P 2 -I{} sh -c 'printf "#include \"%s\"\n" "$1" |
  c++ -std=c++17 -fsyntax-only $2 -x c++ - 2>"$3/header-$(echo "$1" | tr / _).log" ||
  { echo "$1"; cat "$3/header-$(echo "$1" | tr / _).log"; exit 255; }' _ {} "$cflags" "$work" \
  <"$work/headers" >"$work/headers.log" 2>&1 ||
  { cat "$work/headers.log" >&2; fail "an installed header does not compile alone"; }
echo "installed headers: $(wc -l <"$work/headers") compile alone"

# A host on SQLite alone links the `stepwise` module only: neither it nor
# the program names libpq, librdkafka or libcurl.
libs=$(pkg-config --libs stepwise)
case "$libs" in *-lpq* | *rdkafka* | *curl* | *httplib*) fail "pkg-config --libs stepwise names more than the engine on SQLite: $libs" ;; esac
cp "$src/examples/embed_provision.cpp" "$work/embed.cpp"
# shellcheck disable=SC2046
c++ -std=c++17 -O2 "$work/embed.cpp" -o "$work/embed" $(pkg-config --cflags --libs stepwise) \
  >"$work/embed.log" 2>&1 || { cat "$work/embed.log" >&2; fail "the SQLite-only host does not build"; }
shared=$(ldd "$work/embed" | awk '{print $1}' | tr '\n' ' ')
case "$shared" in *libpq* | *librdkafka* | *libcurl*) fail "the SQLite-only host loads $shared" ;; esac
"$work/embed" "sqlite:$work/embed.db" >"$work/embed.out" 2>&1 || { cat "$work/embed.out" >&2; fail "the SQLite-only host failed"; }
grep -q ' succeeded ' "$work/embed.out" || fail "the SQLite-only host's operation did not succeed"
# Given a PostgreSQL URI, it says what it lacks.
"$work/embed" "postgresql://nobody@127.0.0.1:1/none" >"$work/embed.out" 2>&1 && fail "the SQLite-only host opened a PostgreSQL store"
grep -q 'built without PostgreSQL' "$work/embed.out" || { cat "$work/embed.out" >&2; fail "no clear error for a PostgreSQL URI"; }
echo "sqlite-only host: $(stat -c %s "$work/embed") bytes; loads $shared"

# Out of the tree: a copy of the example, nothing else of the source.
cp -r "$src/examples/host" "$work/host"
meson setup "$work/host-build" "$work/host" >/dev/null || fail "meson setup of the host failed"
ninja -C "$work/host-build" >"$work/compile.log" 2>&1 || { cat "$work/compile.log" >&2; fail "the host does not build"; }

# The log exists before the loop below reads it: the background job
# opens its redirection only once it runs.
: >"$work/host.log"
"$work/host-build/host" --listen 127.0.0.1:0 --store "sqlite:$work/host.db" >>"$work/host.log" 2>&1 &
pid=$!
url=
i=0
while [ $i -lt 300 ] && [ -z "$url" ]; do
  url=$(sed -n 's/^host: serving on \(http[^ ]*\)$/\1/p' "$work/host.log")
  kill -0 "$pid" 2>/dev/null || fail "the host exited before it listened"
  [ -n "$url" ] || sleep 0.1
  i=$((i + 1))
done
[ -n "$url" ] || fail "the host did not say where it listens"

id=$("$stepwise" --url "$url" --json ops start order --input '{"item":"pen","count":3}' |
  python3 -c 'import json,sys; print(json.load(sys.stdin)["id"])') || fail "start over HTTP failed"
state=
i=0
while [ $i -lt 300 ]; do
  state=$("$stepwise" --url "$url" --json ops show "$id" |
    python3 -c 'import json,sys; o=json.load(sys.stdin); print(o["state"], o["data"].get("total_cents"))')
  case "$state" in succeeded* | failed* | canceled*) break ;; esac
  sleep 0.1
  i=$((i + 1))
done
[ "$state" = "succeeded 3750" ] || fail "over HTTP: $id ended as '$state', not 'succeeded 3750'"
echo "http: $id $state"

i=0
until grep -q '^typed: ' "$work/host.log"; do
  [ $i -lt 300 ] || fail "no answer to the typed request"
  sleep 0.1
  i=$((i + 1))
done
grep -q '^typed: .* succeeded total_cents=2500$' "$work/host.log" || fail "the typed request's operation did not succeed"
grep '^typed: ' "$work/host.log"

kill -TERM "$pid"
wait "$pid" || fail "the host did not stop cleanly on SIGTERM (exit $?)"
pid=
echo "host_test: ok"
