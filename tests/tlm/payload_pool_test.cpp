// The payload pools: recycled payloads, their commands reached with and without the
// library's extension lookup. Plain C++ (no SystemC kernel).
#include <catch2/catch.hpp>

#include "tlm/payload_pool.h"

using namespace ssd;

TEST_CASE("a pooled payload's command is its extension's, and comes back reset", "[tlm]") {
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

TEST_CASE("a payload from elsewhere still finds its command through the extension array", "[tlm]") {
  tlm::tlm_generic_payload gp;
  auto* ext = new HostExtension;
  gp.set_extension(ext);  // owned by gp from here
  host_cmd(gp).lba = 4242;
  CHECK(ext->cmd.lba == 4242);
  CHECK(&host_cmd(gp) == &ext->cmd);
}

TEST_CASE("host and flash pools keep their payload types apart", "[tlm]") {
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
