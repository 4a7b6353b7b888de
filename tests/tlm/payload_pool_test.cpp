// tlm/: the payload pools (recycled payloads, their commands reached with and without
// the library's extension lookup) and the simulated time in ticks. No SystemC kernel runs.
#include <catch2/catch.hpp>

#include <cstdint>
#include <vector>

#include "tlm/payload_pool.h"
#include "tlm/sim_now.h"

using namespace ssd;

TEST_CASE("payload pool: a pooled payload's command is its extension's, and comes back reset", "[tlm]") {
  FlashPayloadPool pool("test pool");
  tlm::tlm_generic_payload* gp = pool.acquire();
  FlashExtension* ext = nullptr;
  gp->get_extension(ext);  // what any other module would do
  REQUIRE(ext != nullptr);
  FlashCommand& c = flash_cmd(*gp);
  CHECK(&c == &ext->cmd);
  c.op = FlashOp::Program;
  c.page = 17;
  CHECK(ext->cmd.page == 17);
  gp->release();
  CHECK(pool.outstanding() == 0);
  tlm::tlm_generic_payload* again = pool.acquire();
  CHECK(again == gp);  // recycled, not allocated
  CHECK(pool.capacity() == 1);
  CHECK(flash_cmd(*again).page == 0);
  CHECK(flash_cmd(*again).op == FlashOp::Read);
  again->release();
}

TEST_CASE("payload pool: a payload from elsewhere still finds its command through the extension array", "[tlm]") {
  tlm::tlm_generic_payload gp;
  auto* ext = new HostExtension;
  gp.set_extension(ext);  // owned by gp from here
  host_cmd(gp).lba = 4242;
  CHECK(ext->cmd.lba == 4242);
  CHECK(&host_cmd(gp) == &ext->cmd);
}

TEST_CASE("payload pool: host and flash pools keep their payload types apart", "[tlm]") {
  HostPayloadPool hosts("hosts");
  FlashPayloadPool flashes("flashes");
  tlm::tlm_generic_payload* h = hosts.acquire();
  tlm::tlm_generic_payload* f = flashes.acquire();
  FlashExtension* none = nullptr;
  h->get_extension(none);
  CHECK(none == nullptr);  // a host payload carries no flash command
  host_cmd(*h).lba = 1;
  flash_cmd(*f).page = 2;
  CHECK(host_cmd(*h).lba == 1);
  CHECK(flash_cmd(*f).page == 2);
  h->release();
  f->release();
  hosts.check_all_returned();
  flashes.check_all_returned();
}

TEST_CASE("sim time: sc_delay gives the sc_time that sc_time::from_value gives", "[tlm][time]") {
  std::vector<Tick> values = {0, 1, 2, 999, 1000, 1001, 75000000, 3800000000ull, (Tick{1} << 40) + 7};
  for (int b = 50; b <= 63; ++b)
    for (Tick d : {Tick{0}, Tick{1}, Tick{3}}) {
      values.push_back((Tick{1} << b) - d);
      values.push_back((Tick{1} << b) + d);
    }
  std::uint64_t x = 0x9E3779B97F4A7C15ull;
  for (int i = 0; i < 100000; ++i) {
    x ^= x << 13;
    x ^= x >> 7;
    x ^= x << 17;
    values.push_back(x >> (x % 40));  // spread over the magnitudes
  }
  for (Tick v : values) {
    INFO("ticks " << v);
    REQUIRE(sc_delay(v).value() == sc_core::sc_time::from_value(v).value());
  }
}
