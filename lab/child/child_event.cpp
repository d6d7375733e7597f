#include "lab/child/child_event.h"

#include "common/usage_error.h"  // one_line

namespace lb::lab {
namespace {

using nlohmann::json;

// A line quoted in an error: one line, and short (a child that writes megabytes must not make the
// parent's message as long).
std::string quoted(const std::string& line) {
  constexpr std::size_t kMax = 160;
  return "'" + one_line(line.substr(0, kMax)) + (line.size() > kMax ? "...'" : "'");
}

std::string dumped(const json& j) { return j.dump(-1, ' ', false, json::error_handler_t::replace); }

// Reads the fields of one line of kind `what` ("size", "benchmark", ...); every failure names the
// field.
class Fields {
 public:
  // `prefix`: where these fields are in the line ("student." for a benchmark's figures).
  Fields(const json& j, std::string what, std::string prefix = "")
      : j_(j), what_(std::move(what)), prefix_(std::move(prefix)) {}

  [[noreturn]] void fail(const std::string& key, const std::string& why) const {
    throw ChildProtocolError("a " + what_ + " line whose '" + prefix_ + key + "' " + why);
  }
  bool has(const char* key) const { return j_.contains(key); }
  const json& get(const char* key) const {
    if (!j_.contains(key)) fail(key, "is missing");
    return j_.at(key);
  }
  std::string text(const char* key) const {
    const json& v = get(key);
    if (!v.is_string()) fail(key, "is not a string");
    return v.get<std::string>();
  }
  std::string text_or(const char* key, const std::string& absent) const { return has(key) ? text(key) : absent; }
  bool boolean(const char* key) const {
    const json& v = get(key);
    if (!v.is_boolean()) fail(key, "is not true or false");
    return v.get<bool>();
  }
  double number(const char* key) const {
    const json& v = get(key);
    if (!v.is_number()) fail(key, "is not a number");
    return v.get<double>();
  }
  double number_or(const char* key, double absent) const { return has(key) ? number(key) : absent; }
  std::size_t count(const char* key) const {
    const json& v = get(key);
    if (!v.is_number_unsigned() && !(v.is_number_integer() && v.get<std::int64_t>() >= 0))
      fail(key, "is not a count (an integer, 0 or more)");
    return v.get<std::size_t>();
  }
  std::size_t count_or(const char* key, std::size_t absent) const { return has(key) ? count(key) : absent; }
  const json& object(const char* key) const {
    const json& v = get(key);
    if (!v.is_object()) fail(key, "is not an object");
    return v;
  }

 private:
  const json& j_;
  std::string what_, prefix_;
};

json figures_json(const Figures& f) {
  return {{"median_ms", f.median_ms}, {"samples", f.samples}, {"noise", f.noise},
          {"gbps", f.gbps},           {"gflops", f.gflops},   {"stop", f.stop}};
}

Figures figures_from(const json& j, const std::string& key) {
  const Fields f(j, "benchmark", key + ".");
  Figures out;
  out.median_ms = f.number("median_ms");
  out.samples = f.count("samples");
  out.noise = f.number_or("noise", 0);
  out.gbps = f.number_or("gbps", 0);
  out.gflops = f.number_or("gflops", 0);
  out.stop = f.text_or("stop", "");
  return out;
}

// The kinds, as the child writes them (the wire format of lab_check.h's first versions: the three
// events named by "event", the others by the key they carry).
json line_of(const NoGpu& e) { return {{"event", "no_gpu"}, {"reason", e.reason}}; }
json line_of(const CompileFailed& e) { return {{"event", "compile_error"}, {"message", e.message}}; }
json line_of(const SizeChecked& e) {
  json j = {{"size", e.size}, {"passed", e.passed}};
  if (!e.feedback.empty()) j["feedback"] = e.feedback;
  return j;
}
json line_of(const CudaFailure& e) { return {{"cuda_error", e.error}}; }
json line_of(const Failure& e) { return {{"error", e.error}}; }
json line_of(const TimingEnvironment& e) {
  return {{"event", "environment"}, {"gpu", e.gpu}, {"ceilings", e.ceilings}, {"peaks", e.peaks},
          {"cache_mode", e.cache_mode}};
}
json line_of(const BenchmarkTimed& e) {
  json j = {{"benchmark", e.size},
            {"student", figures_json(e.student)},
            {"samples_verified", e.samples_verified},
            {"input_reset_ms", e.input_reset_ms}};
  if (e.ours) j["runtime"] = figures_json(*e.ours);
  else j["runtime_error"] = e.ours_error;
  return j;
}
json line_of(const BenchmarkFailed& e) { return {{"benchmark", e.size}, {"error", e.error}}; }
json line_of(const Profiled& e) {
  json j = {{"profiled", e.size}, {"passed", e.passed}};
  if (!e.feedback.empty()) j["feedback"] = e.feedback;
  return j;
}

json line_of(const StudentBuilt& e) { return {{"event", "built"}, {"what", e.what}, {"ms", e.ms}}; }
const char* to_string(TripOf who) { return who == TripOf::kOurs ? "ours" : "student"; }
json line_of(const TripMark& e) {
  return {{"event", "trip"}, {"mark", e.end ? "end" : "start"}, {"benchmark", e.size}, {"who", to_string(e.who)},
          {"sample", e.sample}};
}
const char* memory_text(bool pinned) { return pinned ? "pinned" : "pageable"; }
json line_of(const HostBuffers& e) {
  return {{"event", "host_buffers"}, {"benchmark", e.size}, {"a", memory_text(e.a_pinned)},
          {"b", memory_text(e.b_pinned)}, {"c", memory_text(e.c_pinned)}};
}

// One of two words: `first` (true) or `second` (false); anything else names the field.
bool one_of(const Fields& f, const char* key, const char* first, const char* second) {
  const std::string word = f.text(key);
  if (word != first && word != second) f.fail(key, std::string("is neither ") + first + " nor " + second);
  return word == first;
}

ChildEvent event_named(const json& j, const std::string& event) {
  if (event == "built") {
    const Fields f(j, "built");
    return StudentBuilt{f.text("what"), f.number("ms")};
  }
  if (event == "trip") {
    const Fields f(j, "trip");
    TripMark m;
    m.end = one_of(f, "mark", "end", "start");
    m.size = f.text("benchmark");
    m.who = one_of(f, "who", "ours", "student") ? TripOf::kOurs : TripOf::kStudent;
    m.sample = f.count("sample");
    return m;
  }
  if (event == "host_buffers") {
    const Fields f(j, "host_buffers");
    return HostBuffers{f.text("benchmark"), one_of(f, "a", "pinned", "pageable"), one_of(f, "b", "pinned", "pageable"),
                       one_of(f, "c", "pinned", "pageable")};
  }
  if (event == "no_gpu") return NoGpu{Fields(j, "no_gpu").text("reason")};
  if (event == "compile_error") return CompileFailed{Fields(j, "compile_error").text("message")};
  if (event == "environment") {
    const Fields f(j, "environment");
    TimingEnvironment e;
    e.gpu = f.text("gpu");
    e.ceilings = f.object("ceilings");
    // The figures the grade reads from them (lab_grade.cpp): numbers where present.
    const Fields ceilings(e.ceilings, "environment", "ceilings.");
    for (const char* key : {"copy_gbps", "sgemm_gflops", "h2d_gbps", "d2h_gbps", "h2d_pageable_gbps",
                            "d2h_pageable_gbps", "duplex_h2d_gbps", "duplex_d2h_gbps"})
      ceilings.number_or(key, 0);
    if (f.has("peaks") && !j["peaks"].is_null()) {
      e.peaks = f.object("peaks");
      const Fields peaks(e.peaks, "environment", "peaks.");
      for (const char* key : {"dram_gbps", "fp32_gflops", "l2_bytes"}) peaks.number_or(key, 0);
      if (peaks.has("integrated")) peaks.boolean("integrated");
    }
    e.cache_mode = f.text_or("cache_mode", "hot");
    if (e.cache_mode != "cold" && e.cache_mode != "hot") f.fail("cache_mode", "is neither cold nor hot");
    return e;
  }
  throw ChildProtocolError("an unknown event " + quoted(event));
}

}  // namespace

json to_json(const ChildEvent& event) {
  return std::visit([](const auto& e) { return line_of(e); }, event);
}

ChildEvent child_event_from_json(const json& j) {
  if (!j.is_object()) throw ChildProtocolError("a line that is not a JSON object: " + quoted(dumped(j)));
  if (j.contains("event")) {
    if (!j["event"].is_string()) throw ChildProtocolError("a line whose 'event' is not a string: " + quoted(dumped(j)));
    return event_named(j, j["event"].get<std::string>());
  }
  if (j.contains("size")) {
    const Fields f(j, "size");
    return SizeChecked{f.text("size"), f.boolean("passed"), f.text_or("feedback", "")};
  }
  if (j.contains("benchmark")) {
    const Fields f(j, "benchmark");
    if (f.has("error")) return BenchmarkFailed{f.text("benchmark"), f.text("error")};
    BenchmarkTimed e;
    e.size = f.text("benchmark");
    e.student = figures_from(f.object("student"), "student");
    if (f.has("runtime")) e.ours = figures_from(f.object("runtime"), "runtime");
    else e.ours_error = f.text("runtime_error");  // one of the two: "runtime_error" named when neither is there
    e.samples_verified = f.count_or("samples_verified", 0);
    e.input_reset_ms = f.number_or("input_reset_ms", 0);
    return e;
  }
  if (j.contains("profiled")) {
    const Fields f(j, "profiled");
    return Profiled{f.text("profiled"), f.boolean("passed"), f.text_or("feedback", "")};
  }
  if (j.contains("cuda_error")) return CudaFailure{Fields(j, "cuda_error").text("cuda_error")};
  if (j.contains("error")) return Failure{Fields(j, "error").text("error")};
  throw ChildProtocolError("a line that is none of its messages: " + quoted(dumped(j)));
}

ChildEvent parse_child_event(const std::string& line) {
  const json j = json::parse(line, nullptr, /*allow_exceptions=*/false);
  if (j.is_discarded()) throw ChildProtocolError("a line that is not JSON: " + quoted(line));
  return child_event_from_json(j);
}

void write_child_event(std::FILE* out, const ChildEvent& event) {
  std::fprintf(out, "%s\n", to_json(event).dump(-1, ' ', false, json::error_handler_t::replace).c_str());
  std::fflush(out);
}

}  // namespace lb::lab
