#include "lab/commands/profile.h"

#include <algorithm>
#include <cstdlib>
#include <fstream>
#include <map>
#include <sstream>

#include "lab/commands/sanitize.h"
#include "lab/runners/runner.h"

namespace lb::lab {
namespace {

namespace fs = std::filesystem;

bool has(const std::string& text, const std::string& part) { return text.find(part) != std::string::npos; }

// One CSV record (ncu quotes every cell; "" inside quotes is a quote).
std::vector<std::string> csv_cells(const std::string& line) {
  std::vector<std::string> cells;
  std::string cell;
  bool quoted = false;
  for (std::size_t i = 0; i < line.size(); ++i) {
    const char c = line[i];
    if (quoted) {
      if (c == '"' && i + 1 < line.size() && line[i + 1] == '"') cell += '"', ++i;
      else if (c == '"') quoted = false;
      else cell += c;
    } else if (c == '"') {
      quoted = true;
    } else if (c == ',') {
      cells.push_back(cell);
      cell.clear();
    } else if (c != '\r') {
      cell += c;
    }
  }
  cells.push_back(cell);
  return cells;
}

// "1,048,576" -> 1048576; "n/a", "" -> NaN.
double number(std::string text) {
  text.erase(std::remove(text.begin(), text.end(), ','), text.end());
  if (text.empty()) return NAN;
  char* end = nullptr;
  const double value = std::strtod(text.c_str(), &end);
  return end == text.c_str() ? NAN : value;
}

// A value in `unit` (with an SI prefix: nsecond, usecond, Gbyte/second, Kbyte, ...; or the short
// time units ns, us, ms that ncu 2025 writes) in base units.
double in_base_units(double value, const std::string& unit) {
  static const std::map<std::string, double> short_time = {{"ns", 1e-9}, {"us", 1e-6}, {"ms", 1e-3}, {"s", 1.0}};
  if (const auto t = short_time.find(unit); t != short_time.end()) return value * t->second;
  static const std::map<std::string, double> scale = {{"n", 1e-9}, {"u", 1e-6}, {"m", 1e-3}, {"K", 1e3},
                                                      {"M", 1e6},  {"G", 1e9},  {"T", 1e12}};
  for (const std::string base : {"second", "byte", "cycle", "hz"})
    if (unit.size() == base.size() + 1 && unit.compare(1, base.size(), base) == 0)
      if (const auto s = scale.find(unit.substr(0, 1)); s != scale.end()) return value * s->second;
  for (const std::string base : {"byte/second", "byte/s"})
    if (unit.size() == base.size() + 1 && unit.compare(1, base.size(), base) == 0)
      if (const auto s = scale.find(unit.substr(0, 1)); s != scale.end()) return value * s->second;
  return value;
}

struct Metric {
  std::string unit;
  double value = NAN;
};

// Fills the summary from metrics by name: ncu's raw names and, for the details page, its display names.
void fill(ProfileSummary& s, const std::map<std::string, Metric>& metrics) {
  auto get = [&](std::initializer_list<const char*> names, bool to_base = true) -> double {
    for (const char* name : names)
      if (const auto m = metrics.find(name); m != metrics.end() && !std::isnan(m->second.value))
        return to_base ? in_base_units(m->second.value, m->second.unit) : m->second.value;
    return NAN;
  };
  s.duration_ns = get({"gpu__time_duration.sum", "Duration"}) * 1e9;
  s.dram_pct = get({"gpu__dram_throughput.avg.pct_of_peak_sustained_elapsed",
                    "dram__throughput.avg.pct_of_peak_sustained_elapsed", "DRAM Throughput"});
  s.sm_pct = get({"sm__throughput.avg.pct_of_peak_sustained_elapsed", "Compute (SM) Throughput"});
  s.memory_pct = get({"gpu__compute_memory_throughput.avg.pct_of_peak_sustained_elapsed"});
  s.dram_bytes_per_s = get({"dram__bytes.sum.per_second"});
  // "Memory Throughput" is a % in the Speed Of Light section and a byte/second rate (DRAM) in the
  // Memory Workload Analysis section; the details page is read with its unit telling them apart.
  for (const auto& [name, m] : metrics) {
    if (!name.starts_with("Memory Throughput") || std::isnan(m.value)) continue;
    if (m.unit == "%") {
      if (std::isnan(s.memory_pct)) s.memory_pct = m.value;
    } else if (has(m.unit, "byte")) {
      if (std::isnan(s.dram_bytes_per_s)) s.dram_bytes_per_s = in_base_units(m.value, m.unit);
    }
  }
  if (std::isnan(s.dram_bytes_per_s) && s.duration_ns > 0) {
    double bytes = get({"dram__bytes.sum"});
    if (std::isnan(bytes)) bytes = get({"dram__bytes_read.sum"}) + get({"dram__bytes_write.sum"});
    if (!std::isnan(bytes)) s.dram_bytes_per_s = bytes / (s.duration_ns * 1e-9);
  }
  s.achieved_occupancy_pct = get({"sm__warps_active.avg.pct_of_peak_sustained_active", "Achieved Occupancy"});
  s.theoretical_occupancy_pct = get({"sm__maximum_warps_per_active_cycle_pct", "Theoretical Occupancy"});
  s.registers_per_thread = get({"launch__registers_per_thread", "Registers Per Thread"}, false);
  s.waves_per_sm = get({"launch__waves_per_multiprocessor", "Waves Per SM"}, false);
  s.limit_registers = get({"launch__occupancy_limit_registers", "Block Limit Registers"}, false);
  s.limit_shared_mem = get({"launch__occupancy_limit_shared_mem", "Block Limit Shared Mem"}, false);
  s.limit_warps = get({"launch__occupancy_limit_warps", "Block Limit Warps"}, false);
  s.limit_blocks = get({"launch__occupancy_limit_blocks", "Block Limit SM"}, false);
  if (s.grid.empty()) {
    if (const auto m = metrics.find("launch__grid_size"); m != metrics.end() && !std::isnan(m->second.value))
      s.grid = std::to_string(static_cast<long long>(m->second.value));
  }
  if (s.block.empty()) {
    if (const auto m = metrics.find("launch__block_size"); m != metrics.end() && !std::isnan(m->second.value))
      s.block = std::to_string(static_cast<long long>(m->second.value));
  }
}

std::string fixed(double value, int digits) {
  char text[64];
  std::snprintf(text, sizeof text, "%.*f", digits, value);
  return text;
}

std::string slurp(const fs::path& p) {
  std::ifstream in(p);
  std::stringstream text;
  text << in.rdbuf();
  return text.str();
}

}  // namespace

ProfileSummary parse_ncu_csv(const std::string& text, const std::string& kernel) {
  ProfileSummary summary;
  std::vector<std::vector<std::string>> rows;
  std::istringstream lines(text);
  for (std::string line; std::getline(lines, line);)
    if (line.starts_with("\"")) rows.push_back(csv_cells(line));  // not ==PROF==, ==WARNING==, ...
  std::size_t h = 0;
  while (h < rows.size() && !(rows[h].front() == "ID" && std::count(rows[h].begin(), rows[h].end(), "Kernel Name")))
    ++h;
  if (h == rows.size()) return summary;
  const std::vector<std::string>& header = rows[h];
  auto column = [&](const std::string& name) -> std::ptrdiff_t {
    const auto at = std::find(header.begin(), header.end(), name);
    return at == header.end() ? -1 : at - header.begin();
  };
  auto cell = [](const std::vector<std::string>& row, std::ptrdiff_t i) {
    return i >= 0 && static_cast<std::size_t>(i) < row.size() ? row[i] : std::string();
  };
  const std::ptrdiff_t id_col = column("ID"), kernel_col = column("Kernel Name");
  const std::ptrdiff_t grid_col = column("Grid Size"), block_col = column("Block Size");
  auto matches = [&](const std::vector<std::string>& row) {
    return !cell(row, id_col).empty() && (kernel.empty() || has(cell(row, kernel_col), kernel));
  };
  std::map<std::string, Metric> metrics;
  const std::ptrdiff_t name_col = column("Metric Name"), unit_col = column("Metric Unit"),
                       value_col = column("Metric Value"), section_col = column("Section Name");
  if (name_col >= 0 && value_col >= 0) {  // details layout: one row per metric of each launch
    std::string launch;
    for (std::size_t r = h + 1; r < rows.size(); ++r) {
      const std::vector<std::string>& row = rows[r];
      if (!matches(row)) continue;
      if (launch.empty()) {
        launch = cell(row, id_col);
        summary.kernel = cell(row, kernel_col);
        summary.grid = cell(row, grid_col);
        summary.block = cell(row, block_col);
      }
      if (cell(row, id_col) != launch) continue;  // the first launch only
      std::string name = cell(row, name_col);
      if (name == "Memory Throughput") name += " (" + cell(row, section_col) + ")";  // in two sections
      metrics[name] = {cell(row, unit_col), number(cell(row, value_col))};
    }
    summary.found = !launch.empty();
  } else {  // raw layout: one column per metric, a units row, one row per launch
    std::size_t first = h + 1;
    const std::vector<std::string>* units = nullptr;
    if (first < rows.size() && cell(rows[first], id_col).empty()) units = &rows[first++];
    for (std::size_t r = first; r < rows.size() && !summary.found; ++r) {
      const std::vector<std::string>& row = rows[r];
      if (!matches(row)) continue;
      summary.found = true;
      summary.kernel = cell(row, kernel_col);
      summary.grid = cell(row, grid_col);
      summary.block = cell(row, block_col);
      for (std::size_t c = 0; c < header.size() && c < row.size(); ++c)
        metrics[header[c]] = {units ? cell(*units, static_cast<std::ptrdiff_t>(c)) : std::string(), number(row[c])};
    }
  }
  if (summary.found) fill(summary, metrics);
  return summary;
}

std::string occupancy_limiter(const ProfileSummary& s) {
  if (!std::isnan(s.theoretical_occupancy_pct) && s.theoretical_occupancy_pct >= 99.5) return {};
  struct Limit {
    double blocks;
    const char* what;
  };
  const Limit limits[] = {
      {s.limit_registers, "registers per thread"},
      {s.limit_shared_mem, "shared memory per block"},
      {s.limit_warps, "the block size (warps per block)"},
      {s.limit_blocks, "the most blocks an SM holds (the blocks are small)"},
  };
  const Limit* least = nullptr;
  for (const Limit& l : limits)
    if (!std::isnan(l.blocks) && (!least || l.blocks < least->blocks)) least = &l;
  if (!least) return {};
  return std::string(least->what) + " (" + fixed(least->blocks, 0) + " blocks of this size fit on an SM)";
}

std::string profile_verdict(const ProfileSummary& s) {
  const double dram = s.dram_pct, sm = s.sm_pct;
  const double memory = std::isnan(s.memory_pct) ? dram : std::max(s.memory_pct, std::isnan(dram) ? 0.0 : dram);
  if (std::isnan(memory) && std::isnan(sm)) return "no verdict: ncu did not report the throughput figures";
  constexpr double kBusy = 60;  // Nsight Compute's own rule of thumb: above 60% of peak a unit is the limit
  const double mem = std::isnan(memory) ? 0 : memory, comp = std::isnan(sm) ? 0 : sm;
  if (mem >= kBusy && mem >= comp) {
    if (!std::isnan(dram) && dram >= kBusy) {
      if (dram >= 80)
        return "memory-bound: DRAM at " + fixed(dram, 0) + "% of peak — this kernel is as fast as the memory allows";
      return "memory-bound: DRAM at " + fixed(dram, 0) +
             "% of peak — some headroom left: coalesced, wide accesses and enough loads in flight get closer";
    }
    return "memory-bound in the caches: the busiest memory unit (L1 or L2) at " + fixed(mem, 0) +
           "% of peak — fewer, wider or better-reused accesses would help";
  }
  if (comp >= kBusy)
    return "compute-bound: SM at " + fixed(comp, 0) +
           "% of peak — fewer or cheaper instructions per element are what would make it faster";
  std::string text = "neither memory (" + fixed(mem, 0) + "% of peak) nor compute (" + fixed(comp, 0) +
                     "%) is busy: latency-bound (too few warps in flight or a serial dependency)";
  if (!std::isnan(s.waves_per_sm) && s.waves_per_sm < 1)
    text += "; the grid fills only " + fixed(s.waves_per_sm * 100, 0) + "% of one wave of the GPU";
  return text;
}

void print_profile_summary(const ProfileSummary& s, std::FILE* out) {
  if (!std::isnan(s.duration_ns)) std::fprintf(out, "  duration:          %.1f us\n", s.duration_ns * 1e-3);
  if (!std::isnan(s.dram_bytes_per_s) || !std::isnan(s.dram_pct)) {
    std::string line = "  DRAM throughput:   ";
    if (!std::isnan(s.dram_bytes_per_s)) line += fixed(s.dram_bytes_per_s / 1e9, 1) + " GB/s";
    if (!std::isnan(s.dram_pct))
      line += (std::isnan(s.dram_bytes_per_s) ? "" : ", ") + fixed(s.dram_pct, 1) + "% of peak";
    std::fprintf(out, "%s\n", line.c_str());
  }
  if (!std::isnan(s.sm_pct)) std::fprintf(out, "  compute (SM):      %.1f%% of peak\n", s.sm_pct);
  if (!std::isnan(s.achieved_occupancy_pct) || !std::isnan(s.theoretical_occupancy_pct)) {
    std::string line = "  occupancy:         ";
    line += std::isnan(s.achieved_occupancy_pct) ? "?" : fixed(s.achieved_occupancy_pct, 1) + "%";
    line += " achieved of ";
    line += std::isnan(s.theoretical_occupancy_pct) ? "?" : fixed(s.theoretical_occupancy_pct, 1) + "%";
    line += " theoretical";
    const std::string limiter = occupancy_limiter(s);
    if (!limiter.empty()) line += "; limited by " + limiter;
    std::fprintf(out, "%s\n", line.c_str());
  }
  if (!std::isnan(s.registers_per_thread))
    std::fprintf(out, "  registers:         %.0f per thread\n", s.registers_per_thread);
  if (!s.grid.empty() || !s.block.empty()) {
    std::string line = "  launch:            grid " + (s.grid.empty() ? "?" : s.grid) + ", block " +
                       (s.block.empty() ? "?" : s.block);
    if (!std::isnan(s.waves_per_sm)) line += ", " + fixed(s.waves_per_sm, 2) + " waves";
    std::fprintf(out, "%s\n", line.c_str());
  }
  std::fprintf(out, "  verdict: %s\n", profile_verdict(s).c_str());
}

bool ncu_lacks_permission(const std::string& log) { return has(log, "ERR_NVGPUCTRPERM"); }

std::string ncu_failure(const std::string& log) {
  if (ncu_lacks_permission(log))
    return "ncu has no permission to read the GPU's performance counters here (ERR_NVGPUCTRPERM). Run it as "
           "root, or let every user profile: load the nvidia module with NVreg_RestrictProfilingToAdminUsers=0 "
           "(e.g. `options nvidia NVreg_RestrictProfilingToAdminUsers=0` in /etc/modprobe.d/, then reboot); "
           "see https://developer.nvidia.com/ERR_NVGPUCTRPERM";
  std::string errors;
  std::istringstream lines(log);
  for (std::string line; std::getline(lines, line);)
    if (line.starts_with("==ERROR==")) errors += (errors.empty() ? "" : "\n") + line;
  return errors;
}

std::vector<std::string> ncu_prefix(const fs::path& ncu, const fs::path& log_file, const std::string& kernel) {
  // A regular expression, so that it also finds a kernel whose symbol the compiler decorated
  // (Numba's: a namespace, the name, a mangled signature); identifiers have no special characters.
  return {ncu.string(),     "--kernel-name", "regex:" + kernel, "--launch-count",
          "1",              "--section",     "SpeedOfLight",  "--section",
          "Occupancy",      "--section",     "LaunchStats",   "--section",
          "MemoryWorkloadAnalysis", "--csv", "--page",        "raw",
          "--log-file",     log_file.string()};
}

int profile_submission(const LabSpec& spec, const fs::path& file, const CheckOptions& options, std::FILE* out) {
  if (const std::string why = spec.runner->why_not_profiled(spec, file); !why.empty()) throw UsageError(why);
  require_student_file(file);
  const ToolLookup ncu = find_cuda_tool("ncu");
  if (!ncu.found()) {
    std::fprintf(out, "cannot profile here: %s\n", ncu.why_not.c_str());
    return kExitCannotRun;
  }
  const fs::path log = temp_log_path("ncu");
  CheckOptions profiled = options;
  profiled.runner = ncu_prefix(ncu.path, log, spec.kernel);
  profiled.runner.insert(profiled.runner.end(), options.runner.begin(), options.runner.end());
  profiled.line_info = true;  // ncu's source view, should a teacher open the kernel there
  profiled.sanitize = false;
  std::fflush(out);
  const double limit = std::max(spec.time_limit_s * kProfileTimeFactor, kProfileMinLimitS);
  const ChildReport report = run_child_process(spec, file, ChildMode::kProfile, profiled, limit);
  const std::string ncu_log = slurp(log);
  std::error_code ec;
  fs::remove(log, ec);

  if (!report.no_gpu.empty()) {
    std::fprintf(out, "cannot profile here: no usable GPU (%s)\n", report.no_gpu.c_str());
    return kExitCannotRun;
  }
  if (!report.runner_unavailable.empty()) {
    std::fprintf(out, "cannot profile here: %s\n", report.runner_unavailable.c_str());
    return kExitCannotRun;
  }
  if (!report.compile_error.empty()) {
    std::fprintf(out, "%s does not compile:\n", file.c_str());
    std::istringstream lines(report.compile_error);
    for (std::string line; std::getline(lines, line);)
      if (!line.empty()) std::fprintf(out, "  %s\n", line.c_str());
    std::fprintf(out, "FAIL: compile error (run `layerbench lab check %s %s` for the details)\n", spec.name.c_str(),
                 file.c_str());
    return kExitFailed;
  }
  const std::string why_ncu = ncu_failure(ncu_log + "\n" + report.child.err + "\n" + report.child.out);
  if (ncu_lacks_permission(ncu_log + report.child.err + report.child.out)) {
    std::fprintf(out, "cannot profile here: %s\n", why_ncu.c_str());
    return kExitCannotRun;
  }
  std::fprintf(out, "%s: %s — profile of %s\n", spec.name.c_str(), spec.title.c_str(), file.c_str());
  if (!report.profiled || !report.protocol_error.empty()) {
    const std::string why = !report.error.empty()          ? report.error
                            : !report.protocol_error.empty() ? protocol_error_text(report.protocol_error)
                                                             : report.why_stopped();
    std::fprintf(out, "FAIL: %s\n", why.c_str());
    if (!why_ncu.empty()) std::fprintf(out, "ncu said:\n%s\n", why_ncu.c_str());
    return why_ncu.empty() || !report.error.empty() || !report.protocol_error.empty() ? kExitFailed : kExitCannotRun;
  }
  const std::string& size = report.profiled->size;
  if (!report.profiled->passed) {
    std::fprintf(out, "FAIL: wrong result at n = %s: %s\n(profile a kernel once `layerbench lab check` passes)\n",
                 size.c_str(), report.profiled->feedback.c_str());
    return kExitFailed;
  }
  const ProfileSummary summary = parse_ncu_csv(ncu_log, spec.kernel);
  if (!summary.found) {
    std::fprintf(out, "cannot profile here: ncu recorded no launch of %s%s\n", spec.kernel.c_str(),
                 why_ncu.empty() ? "" : (":\n" + why_ncu).c_str());
    return kExitCannotRun;
  }
  std::fprintf(out, "  size:              %s (one verified run, your kernel's launch only)\n", size.c_str());
  print_profile_summary(summary, out);
  return kExitPassed;
}

}  // namespace lb::lab
