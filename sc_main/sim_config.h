// The parse and validate steps of a run (a Config of every declared key into the typed
// Settings, with each struct's checks and the rules between keys), and the presets.
#pragma once

#include <string>
#include <utility>
#include <vector>

#include "controller/ftl.h"
#include "nand/nand_config.h"
#include "sc_main/config.h"
#include "common/vcd_writer.h"

namespace ssd {

// A Config holding every key with its built-in default.
Config make_config();

// A preset: a config file of configs/presets (presets_dir()), named by its file.
struct Preset {
  std::string name;
  std::string description;  // its "preset" section's description
  std::string path;
};
std::string presets_dir();
// The presets, by name (read once).
const std::vector<Preset>& presets();
// Loads a preset's file (errors name its file and line); throws ConfigError listing the
// presets for an unknown one.
void apply_preset(Config& cfg, const std::string& name);

// The parse and validate steps of a run: every struct filled from its keys, the NAND's
// fault script read, each struct's checks and the rules between keys applied (throws
// ConfigError naming the keys, and where each was set).
struct Settings;
Settings settings(const Config& cfg);
// The keys whose built-in default depends on other keys, set to what the run uses (origin
// still "default"), so that the config.json a run writes reruns alike: a NAND script's
// path (the bundled demo), a trace's request count (0: the whole trace), and the batch
// depth under rescheduling (0: the scheduler block finds the n-plane commands).
void resolve_defaults(Config& cfg);

// Throws ConfigError naming the keys when the combination is invalid.
nand::NandConfig nand_config(const Config& cfg);
// report.warmup with `default` resolved: auto or fixed. Throws ConfigError when auto
// meets an explicit warm-up or a workload without host requests.
std::string warmup_mode(const Config& cfg);
// The same of settings already validated (settings()).
std::string warmup_mode(const Settings& s);
// ftl.precondition_free: auto, gc_mark, gc_running or reserve. Throws ConfigError for
// ftl.precondition_free_blocks given with another mode than auto.
std::string precondition_free_mode(const Config& cfg);
// The free blocks per plane that aged preconditioning starts with for gc_mark,
// gc_running and reserve (auto: the low mark; its start is ftl.precondition_free_blocks),
// for a GC low mark of `gc_low` blocks.
std::uint32_t precondition_free_blocks(const Config& cfg, std::uint32_t gc_low, std::uint32_t reserve = 1);
// The same for a mode.
std::uint32_t precondition_free_blocks(const std::string& mode, std::uint32_t gc_low, std::uint32_t reserve = 1);
// trace.vcd's options (the trace rules checked).
TraceOptions trace_options(const Config& cfg);
// A key listing host request ids (trace.request, report.request_timeline), parsed;
// throws ConfigError naming the key for a token that is not a whole number from 1.
std::vector<std::uint64_t> request_ids(const Config& cfg, const std::string& key);

// The folder holding the bundled files (configs/); set at build time, overridable
// with the environment variable SSDSIM_DATA_DIR.
std::string data_dir();

}  // namespace ssd
