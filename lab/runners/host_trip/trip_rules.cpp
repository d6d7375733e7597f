#include "lab/runners/host_trip/trip_rules.h"

#include <cxxabi.h>

#include <algorithm>
#include <cstdlib>
#include <memory>

namespace lb::lab {
namespace {

// Why each construct is out: the student reads these.
constexpr const char* kAsm =
    "inline assembly is not allowed (not even in device code): it can make system calls that the check of "
    "the compiled file cannot see";
constexpr const char* kAttribute =
    "attributes are not allowed: an attribute can run code when the file is loaded (constructor) or give a "
    "function another's name (alias)";
constexpr const char* kPragma =
    "pragmas are not allowed: a pragma changes how the file is compiled and linked (OpenMP threads, "
    "optimisation, libraries)";
constexpr const char* kPaste = "token pasting (##) is not allowed: it builds names that the text does not show";
constexpr const char* kBuiltin =
    "compiler builtins (__builtin_...) are not allowed: they reach below the allowed calls (frame addresses, "
    "traps, prefetches of the runner's memory)";
constexpr const char* kUcn =
    "universal character names (\\u, \\U) outside a literal are not allowed: they spell names that the text "
    "does not show";
constexpr const char* kExtern =
    "extern is allowed only as extern \"C\" (for the five functions the runner calls)";
constexpr const char* kRawString = "raw string literals are not allowed (nothing in this lab needs one)";
constexpr const char* kTrigraph = "trigraphs (?\?=, ?\?/, ...) are not allowed";
constexpr const char* kLineMarker =
    "line markers (# 12 \"file\") are not allowed: the host compiler shows an error's line from the file one "
    "names";
constexpr const char* kHeaders = "only <cuda_runtime.h> may be included (and <cstddef>, <cstdint>)";

// The host trip's dialect of the rule lexer (lab/runners/source_rules.h).
const SourceDialect& host_trip_dialect() {
  static const SourceDialect dialect = [] {
    SourceDialect d;
    // No #line, and no line marker: the host compiler (gcc, under nvcc) prints the source line of an
    // error from the file a #line names, so `#line 1 "/etc/shadow"` and an error after it would show
    // the student a line of any file the grader can read.
    d.directives = {"define", "undef", "if",    "ifdef", "ifndef",  "elif", "elifdef",
                    "elifndef", "else", "endif", "error", "warning"};
    d.other_directive =
        "is not allowed (only #include <cuda_runtime.h>, #define, #undef, #if, #ifdef, #ifndef, #elif, #else, "
        "#endif, #error, #warning)";
    d.line_marker = kLineMarker;
    d.headers = {"cuda_runtime.h", "cuda_runtime_api.h", "cstddef", "cstdint", "stddef.h", "stdint.h"};
    d.include_refused = std::string(kHeaders) + "; this lab's host code calls the CUDA runtime, nothing else";
    d.include_other = std::string("#include of anything but <header>: ") + kHeaders;
    d.pragma = [](std::string_view) { return "#pragma: " + std::string(kPragma); };
    for (const char* word : {"asm", "__asm", "__asm__"}) d.identifiers[word] = kAsm;
    d.identifiers["__declspec"] = kAttribute;
    d.identifiers["_Pragma"] = kPragma;
    d.identifier_prefixes = {{"__attribute", kAttribute}, {"__builtin_", kBuiltin}};
    d.paste = kPaste;
    d.attribute = kAttribute;
    d.ucn = kUcn;
    d.raw_string = kRawString;
    d.trigraph = kTrigraph;
    d.extern_not_c = kExtern;
    d.where_the_rules_are = "(the lab's rules are in its README.md, \"What your file may contain\")";
    return d;
  }();
  return dialect;
}

std::string demangled(const std::string& name) {
  if (!name.starts_with("_Z")) return name;
  int status = 0;
  const std::unique_ptr<char, void (*)(void*)> text(abi::__cxa_demangle(name.c_str(), nullptr, nullptr, &status),
                                                     std::free);
  return status == 0 && text ? std::string(text.get()) : name;
}

}  // namespace

std::vector<RuleViolation> source_rule_violations(std::string_view text) {
  return rule_violations(text, host_trip_dialect());
}

std::string source_rules_message(const std::filesystem::path& file, const std::vector<RuleViolation>& violations) {
  return rules_message(file, violations, host_trip_dialect());
}

const std::vector<AllowedCall>& allowed_calls() {
  static const std::vector<AllowedCall> calls = [] {
    std::vector<AllowedCall> out;
    // The runtime calls the lesson needs: memory (device, pinned, registered), copies, streams,
    // events, errors, and the device's facts.
    for (const char* name :
         {"cudaMalloc", "cudaFree", "cudaMallocHost", "cudaHostAlloc", "cudaFreeHost", "cudaHostRegister",
          "cudaHostUnregister", "cudaHostGetDevicePointer", "cudaMallocAsync", "cudaFreeAsync", "cudaMemcpy",
          "cudaMemcpyAsync", "cudaMemset", "cudaMemsetAsync", "cudaMemcpyToSymbol", "cudaMemcpyFromSymbol",
          "cudaStreamCreate", "cudaStreamCreateWithFlags", "cudaStreamCreateWithPriority", "cudaStreamDestroy",
          "cudaStreamSynchronize", "cudaStreamWaitEvent", "cudaStreamQuery", "cudaEventCreate",
          "cudaEventCreateWithFlags", "cudaEventRecord", "cudaEventDestroy", "cudaEventSynchronize", "cudaEventQuery",
          "cudaEventElapsedTime", "cudaDeviceSynchronize", "cudaGetLastError", "cudaPeekAtLastError",
          "cudaGetErrorString", "cudaGetErrorName", "cudaGetDevice", "cudaDeviceGetAttribute",
          "cudaGetDeviceProperties", "cudaGetDeviceProperties_v2", "cudaPointerGetAttributes",
          "cudaFuncGetAttributes", "cudaOccupancyMaxActiveBlocksPerMultiprocessor",
          "cudaOccupancyMaxActiveBlocksPerMultiprocessorWithFlags", "cudaDeviceGetStreamPriorityRange",
          "cudaGetDeviceCount", "cudaMemGetInfo", "cudaFuncSetAttribute", "cudaLaunchKernel",
          // CUDA graphs by stream capture (no host nodes: cudaLaunchHostFunc and cudaGraphAddHostNode
          // would run host code on the driver's thread)
          "cudaStreamBeginCapture", "cudaStreamEndCapture", "cudaGraphInstantiate", "cudaGraphInstantiateWithFlags",
          "cudaGraphLaunch", "cudaGraphExecDestroy", "cudaGraphDestroy"})
      out.push_back({name, "runtime"});
    // What nvcc's host stub calls: registering the file's kernels and variables when it is
    // loaded, and a <<<...>>> launch (CUDA 13's nvcc; cudaLaunchKernel above for older ones).
    for (const char* name :
         {"__cudaRegisterFatBinary", "__cudaRegisterFatBinaryEnd", "__cudaUnregisterFatBinary",
          "__cudaRegisterFunction", "__cudaRegisterVar", "__cudaPushCallConfiguration", "__cudaPopCallConfiguration",
          "__cudaLaunchKernel", "__cudaGetKernel"})
      out.push_back({name, "nvcc"});
    // What the C++ compiler emits by itself (block copies, new[] / delete[], static
    // initialisation and its exit handlers, stack protection, unwinding), pageable allocation
    // (the skeleton's malloc) and a little of libm.
    for (const char* name :
         {"memcpy", "memmove", "memset", "malloc", "calloc", "free", "aligned_alloc", "_Znwm", "_Znam", "_ZdlPv",
          "_ZdaPv", "_ZdlPvm", "_ZdaPvm", "__cxa_throw_bad_array_new_length", "__cxa_atexit", "atexit",
          "__dso_handle", "__stack_chk_fail", "__stack_chk_guard", "__cxa_guard_acquire", "__cxa_guard_release",
          "__cxa_guard_abort", "__gxx_personality_v0", "_Unwind_Resume", "__cxa_pure_virtual", "_ZSt9terminatev",
          "__cxa_call_terminate", "__cxa_begin_catch", "__cxa_end_catch",
          "_GLOBAL_OFFSET_TABLE_", "sqrt", "sqrtf", "ceil", "ceilf", "floor", "floorf", "fmin", "fminf", "fmax",
          "fmaxf"})
      out.push_back({name, "compiler"});
    return out;
  }();
  return calls;
}

std::vector<std::string> forbidden_symbols(const std::vector<std::string>& undefined) {
  std::vector<std::string> out;
  for (const std::string& name : undefined) {
    // gcc's out-of-line atomics on aarch64 (static initialisation guards use them).
    if (name.starts_with("__aarch64_")) continue;
    const bool allowed = std::any_of(allowed_calls().begin(), allowed_calls().end(),
                                     [&name](const AllowedCall& call) { return name == call.name; });
    if (!allowed) out.push_back(name);
  }
  return out;
}

std::string forbidden_symbols_message(const std::filesystem::path& file, const std::vector<std::string>& forbidden) {
  std::string text;
  for (const std::string& name : forbidden)
    text += file.string() + ": calls " + demangled(name) + ", which this lab does not allow\n";
  std::string runtime;
  for (const AllowedCall& call : allowed_calls())
    if (std::string_view(call.group) == "runtime") runtime += (runtime.empty() ? "" : ", ") + std::string(call.name);
  return text + "the file may call these CUDA runtime functions, and what nvcc and the C++ compiler add by "
                "themselves (kernel launches, memcpy, new and delete, malloc and free): " + runtime;
}

}  // namespace lb::lab
