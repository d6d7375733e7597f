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

json figures_json(const Figures& f) {
  return {{"median_ms", f.median_ms}, {"samples", f.samples}, {"noise", f.noise},
          {"gbps", f.gbps},           {"gflops", f.gflops},   {"stop", f.stop}};
}

Figures figures_from(const json& j, const std::string& key) {
  const EventFields f(j, "benchmark", key + ".");
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
            {"input_reset_ms", e.input_reset_ms},
            {"sample_verify_ms", e.sample_verify_ms}};
  if (e.handover_ms != 0) j["handover_ms"] = e.handover_ms;  // lab 8's alone
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
json line_of(const RunnerEvent& e) { return e.line; }

ChildEvent event_named(const json& j, const std::string& event) {
  if (event == "built") {
    const EventFields f(j, "built");
    return StudentBuilt{f.text("what"), f.number("ms")};
  }
  if (event == "no_gpu") return NoGpu{EventFields(j, "no_gpu").text("reason")};
  if (event == "compile_error") return CompileFailed{EventFields(j, "compile_error").text("message")};
  if (event == "environment") {
    const EventFields f(j, "environment");
    TimingEnvironment e;
    e.gpu = f.text("gpu");
    e.ceilings = f.object("ceilings");
    // The figures the grade reads from them (lab_grade.cpp): numbers where present.
    const EventFields ceilings(e.ceilings, "environment", "ceilings.");
    for (const char* key : {"copy_gbps", "sgemm_gflops", "h2d_gbps", "d2h_gbps", "h2d_pageable_gbps",
                            "d2h_pageable_gbps", "duplex_h2d_gbps", "duplex_d2h_gbps"})
      ceilings.number_or(key, 0);
    if (f.has("peaks") && !j["peaks"].is_null()) {
      e.peaks = f.object("peaks");
      const EventFields peaks(e.peaks, "environment", "peaks.");
      for (const char* key : {"dram_gbps", "fp32_gflops", "l2_bytes"}) peaks.number_or(key, 0);
      if (peaks.has("integrated")) peaks.boolean("integrated");
    }
    e.cache_mode = f.text_or("cache_mode", "hot");
    if (e.cache_mode != "cold" && e.cache_mode != "hot") f.fail("cache_mode", "is neither cold nor hot");
    return e;
  }
  return RunnerEvent{event, j};  // the runner's own: its ChildNotes reads it, or the parent refuses it
}

}  // namespace

void EventFields::fail(const std::string& key, const std::string& why) const {
  throw ChildProtocolError("a " + what_ + " line whose '" + prefix_ + key + "' " + why);
}
const json& EventFields::get(const char* key) const {
  if (!j_.contains(key)) fail(key, "is missing");
  return j_.at(key);
}
std::string EventFields::text(const char* key) const {
  const json& v = get(key);
  if (!v.is_string()) fail(key, "is not a string");
  return v.get<std::string>();
}
bool EventFields::boolean(const char* key) const {
  const json& v = get(key);
  if (!v.is_boolean()) fail(key, "is not true or false");
  return v.get<bool>();
}
double EventFields::number(const char* key) const {
  const json& v = get(key);
  if (!v.is_number()) fail(key, "is not a number");
  return v.get<double>();
}
std::size_t EventFields::count(const char* key) const {
  const json& v = get(key);
  if (!v.is_number_unsigned() && !(v.is_number_integer() && v.get<std::int64_t>() >= 0))
    fail(key, "is not a count (an integer, 0 or more)");
  return v.get<std::size_t>();
}
const json& EventFields::object(const char* key) const {
  const json& v = get(key);
  if (!v.is_object()) fail(key, "is not an object");
  return v;
}
bool EventFields::one_of(const char* key, const char* first, const char* second) const {
  const std::string word = text(key);
  if (word != first && word != second) fail(key, std::string("is neither ") + first + " nor " + second);
  return word == first;
}

ChildProtocolError unknown_event(const RunnerEvent& event) {
  return ChildProtocolError("an unknown event " + quoted(event.event));
}

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
    const EventFields f(j, "size");
    return SizeChecked{f.text("size"), f.boolean("passed"), f.text_or("feedback", "")};
  }
  if (j.contains("benchmark")) {
    const EventFields f(j, "benchmark");
    if (f.has("error")) return BenchmarkFailed{f.text("benchmark"), f.text("error")};
    BenchmarkTimed e;
    e.size = f.text("benchmark");
    e.student = figures_from(f.object("student"), "student");
    if (f.has("runtime")) e.ours = figures_from(f.object("runtime"), "runtime");
    else e.ours_error = f.text("runtime_error");  // one of the two: "runtime_error" named when neither is there
    e.samples_verified = f.count_or("samples_verified", 0);
    e.input_reset_ms = f.number_or("input_reset_ms", 0);
    e.sample_verify_ms = f.number_or("sample_verify_ms", 0);
    e.handover_ms = f.number_or("handover_ms", 0);
    return e;
  }
  if (j.contains("profiled")) {
    const EventFields f(j, "profiled");
    return Profiled{f.text("profiled"), f.boolean("passed"), f.text_or("feedback", "")};
  }
  if (j.contains("cuda_error")) return CudaFailure{EventFields(j, "cuda_error").text("cuda_error")};
  if (j.contains("error")) return Failure{EventFields(j, "error").text("error")};
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
