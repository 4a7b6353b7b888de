// Partial-page reads: the codewords a read moves out (controller/read_unit.h).
#include <catch2/catch.hpp>

#include "controller/read_unit.h"

using namespace ssd;

TEST_CASE("read unit: the codewords a read needs, from the page's sectors it reads", "[controller][partial]") {
  using ctrl::read_out_bytes;
  // 16 sectors per 8 KiB page.
  CHECK(read_out_bytes(0, 16, 0, 16, 0) == 0);       // off: the whole page
  CHECK(read_out_bytes(0, 8, 0, 16, 0) == 0);
  CHECK(read_out_bytes(0, 16, 0, 16, 2048) == 0);    // the whole page asked for
  CHECK(read_out_bytes(0, 8, 0, 16, 2048) == 4096);  // the first 4 KiB: two codewords
  CHECK(read_out_bytes(8, 8, 0, 16, 2048) == 4096);  // the second 4 KiB
  CHECK(read_out_bytes(3, 1, 0, 16, 2048) == 2048);  // one sector: its codeword
  CHECK(read_out_bytes(3, 2, 0, 16, 2048) == 4096);  // sectors 3-4 straddle codewords 0 and 1
  CHECK(read_out_bytes(3, 1, 0, 16, 512) == 512);
  CHECK(read_out_bytes(7, 2, 0, 16, 1024) == 2048);  // sectors 7-8 straddle codewords 3 and 4
  // A request over pages 1-2 (sectors 20-39): page 1 from sector 4, page 2 up to sector 7.
  CHECK(read_out_bytes(20, 20, 1, 16, 2048) == 6144);  // page sectors 4-15: codewords 1-3
  CHECK(read_out_bytes(20, 20, 2, 16, 2048) == 4096);  // page sectors 0-7: codewords 0-1
  CHECK(read_out_bytes(20, 4, 1, 16, 8192) == 0);      // a codeword the size of the page
}
