// A GTKWave save file (.gtkw) drawn for one run: its geometry and the signals its
// trace.scopes kept, with translate filters referenced by absolute path, so that
// `gtkwave DIR/view.gtkw` opens the run ready from any directory.
//
// Layout: the traced requests (one group each, open); then an overview, open: host,
// host interface, firmware core, the scheduler block's grants, and one row set per
// NAND channel bus; then one group per channel, collapsed: per chip the block's queue,
// per die the array and whose work it is, per plane the registers and the firmware's
// GC state; then the verilated block (controller.rtl), collapsed.
#pragma once

#include <string>
#include <utility>
#include <vector>

#include "common/vcd_writer.h"

namespace ssd {

struct ViewSpec {
  std::string vcd_path;     // absolute
  std::string filters_dir;  // absolute path of waves/
  std::string where_filter; // absolute path of the run's where.txt ("": none)
  std::vector<VcdWriter::Declared> vars;
  std::vector<std::pair<std::uint64_t, unsigned>> requests;  // traced: id, page slots to show
  unsigned channels = 1;
  Tick start = 0;          // the first time shown
  Tick window = 0;         // how much time the window shows
  Tick marker = kNever;    // the primary marker (kNever: none)
  std::string title;       // a comment line
};

std::string gtkw_view(const ViewSpec& spec);

// GTKWave's zoom for a window of `ps` picoseconds in the view's 1600-pixel frame
// (each zoom step halves the window; measured with GTKWave 3.3).
double gtkw_zoom_for(Tick ps);

}  // namespace ssd
