// Sink specs (`--sink`), redaction of destinations, filters and the HMAC.

#include <catch2/catch.hpp>

#include "engine/errc.hpp"
#include "outbox/signature.hpp"
#include "outbox/sink_config.hpp"

using namespace stepwise;
using namespace stepwise::outbox;

TEST_CASE("webhook and kafka sinks parse with their options", "[outbox][config]") {
  auto w = parse_sink("hook=webhook:https://u:pw@example.com/a?t=1,secret-file=/s,"
                      "events=operation_succeeded|operation_failed,workflows=x|y,"
                      "timeout-ms=2500,batch=20,from=end");
  REQUIRE(w);
  CHECK(w->name == "hook");
  CHECK(w->kind == sink_kind::webhook);
  CHECK(w->webhook.url == "https://u:pw@example.com/a?t=1");
  CHECK(w->webhook.secret_file == "/s");
  CHECK(w->webhook.timeout == std::chrono::milliseconds(2500));
  CHECK(w->webhook.batch == 20);
  CHECK(w->start == sink_start::end);
  CHECK(w->filter.types.size() == 2);
  CHECK(w->filter.workflows == std::vector<std::string>{"x", "y"});
  CHECK(describe_destination(*w) == "https://example.com/a?***");
  auto k = parse_sink("bus=kafka:h1:9092,h2:9092/lm_vim_infrastructure_task_events,"
                      "sasl-mechanism=PLAIN,sasl-username=u,sasl-password-file=/p,"
                      "security-protocol=sasl_ssl");
  REQUIRE(k);
  CHECK(k->kind == sink_kind::kafka);
  CHECK(k->kafka.brokers == "h1:9092,h2:9092");
  CHECK(k->kafka.topic == "lm_vim_infrastructure_task_events");
  CHECK(k->kafka.sasl_password_file == "/p");
  CHECK(k->start == sink_start::beginning);
  CHECK(describe_destination(*k) == "h1:9092,h2:9092/lm_vim_infrastructure_task_events");
}

TEST_CASE("bad sink specs are refused with the reason", "[outbox][config]") {
  for (auto spec : {"hook", "Hook=webhook:http://x", "=webhook:http://x", "h=ftp:x",
                    "h=webhook:ftp://x", "h=kafka:brokers", "h=kafka:/t",
                    "h=webhook:http://x,events=nope", "h=webhook:http://x,batch=0",
                    "h=webhook:http://x,from=middle", "h=webhook:http://x,secret-file=",
                    "h=kafka:b/t,batch=2", "h=webhook:http://x,timeout-ms=1,bogus"}) {
    INFO(spec);
    auto c = parse_sink(spec);
    REQUIRE_FALSE(c);
    CHECK(code_of(c.error()) == errc::invalid_argument);
  }
}

TEST_CASE("URLs are shown without credentials", "[outbox][config]") {
  CHECK(redact_url("http://h:8080/p") == "http://h:8080/p");
  CHECK(redact_url("https://user:secret@h/p?token=x#frag") == "https://h/p?***");
  CHECK(redact_url("http://user@h") == "http://h");
  CHECK(redact_url("garbage") == "***");
}

TEST_CASE("filters match types and workflows", "[outbox][config]") {
  sink_filter f;
  event e;
  e.type = event_type::operation_failed;
  CHECK(f.matches(e, "any"));
  f.types = {event_type::operation_succeeded};
  CHECK_FALSE(f.matches(e, "any"));
  f.types.push_back(event_type::operation_failed);
  f.workflows = {"w"};
  CHECK(f.matches(e, "w"));
  CHECK_FALSE(f.matches(e, "v"));
}

TEST_CASE("the webhook signature is HMAC-SHA256 in hex", "[outbox][config]") {
  // RFC 4231, test case 2.
  CHECK(hmac_sha256_hex("Jefe", "what do ya want for nothing?")
        == "5bdcc146bf60754e6a042426089575c75a003f089d2739839dec58b964ec3843");
  CHECK(signature_header("k", "").rfind("sha256=", 0) == 0);
}
