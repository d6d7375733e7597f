#include "lab/runners/host_trip/trip_rules.h"

#include <cxxabi.h>

#include <algorithm>
#include <cctype>
#include <cstdlib>
#include <memory>
#include <set>

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
constexpr const char* kHeaders = "only <cuda_runtime.h> may be included (and <cstddef>, <cstdint>)";

const std::set<std::string, std::less<>> kAllowedHeaders = {"cuda_runtime.h", "cuda_runtime_api.h", "cstddef",
                                                             "cstdint",        "stddef.h",           "stdint.h"};
const std::set<std::string, std::less<>> kAllowedDirectives = {
    "define", "undef", "if", "ifdef", "ifndef", "elif", "elifdef", "elifndef", "else", "endif", "error", "warning",
    "line"};

// One character after line splicing (translation phase 2), with the line it came from.
struct Char {
  char c;
  int line;
};

std::vector<Char> spliced(std::string_view text) {
  std::vector<Char> out;
  out.reserve(text.size());
  int line = 1;
  for (std::size_t i = 0; i < text.size();) {
    if (text[i] == '\\') {  // a backslash ending a line joins it to the next
      std::size_t j = i + 1;
      if (j < text.size() && text[j] == '\r') ++j;
      if (j < text.size() && text[j] == '\n') {
        ++line;
        i = j + 1;
        continue;
      }
    }
    out.push_back({text[i], line});
    if (text[i] == '\n') ++line;
    ++i;
  }
  return out;
}

bool ident_start(char c) { return std::isalpha(static_cast<unsigned char>(c)) || c == '_' || (c & 0x80); }
bool ident_char(char c) { return ident_start(c) || std::isdigit(static_cast<unsigned char>(c)); }
bool blank(char c) { return c == ' ' || c == '\t' || c == '\r' || c == '\v' || c == '\f'; }

// Reads the spliced text token by token, as far as the rules need: comments, literals, numbers,
// identifiers, directives and the few punctuators that matter.
class Scanner {
 public:
  explicit Scanner(std::string_view text) : s_(spliced(text)) {}

  std::vector<RuleViolation> run() {
    bool line_start = true;  // only blanks and comments since the last newline: a # here is a directive
    while (i_ < s_.size()) {
      const char c = at(i_);
      if (c == '\n') {
        line_start = true;
        ++i_;
      } else if (blank(c)) {
        ++i_;
      } else if (c == '/' && (at(i_ + 1) == '/' || at(i_ + 1) == '*')) {
        i_ = after_comment(i_);
      } else if (const std::size_t hash = hash_length(i_)) {
        const std::size_t next = i_ + hash;
        if (const std::size_t second = hash_length(next)) {
          flag(i_, kPaste);
          i_ = next + second;
        } else {
          i_ = line_start ? directive(i_, next) : next;
        }
        line_start = false;
      } else {
        line_start = false;
        token(c);
      }
    }
    return std::move(out_);
  }

 private:
  char at(std::size_t k) const { return k < s_.size() ? s_[k].c : '\0'; }
  void flag(std::size_t k, std::string what) {
    out_.push_back({k < s_.size() ? s_[k].line : (s_.empty() ? 1 : s_.back().line), std::move(what)});
  }
  // '#' or the digraph '%:'; 0 when neither starts at k.
  std::size_t hash_length(std::size_t k) const {
    if (at(k) == '#') return 1;
    return at(k) == '%' && at(k + 1) == ':' ? 2 : 0;
  }
  std::size_t after_comment(std::size_t k) const {
    if (at(k + 1) == '/') {
      while (k < s_.size() && at(k) != '\n') ++k;
      return k;
    }
    for (k += 2; k < s_.size(); ++k)
      if (at(k) == '*' && at(k + 1) == '/') return k + 2;
    return s_.size();
  }
  // Blanks and comments (and newlines when `newlines`), from k.
  std::size_t skip_blank(std::size_t k, bool newlines) const {
    while (k < s_.size()) {
      if (blank(at(k)) || (newlines && at(k) == '\n')) ++k;
      else if (at(k) == '/' && (at(k + 1) == '/' || at(k + 1) == '*')) k = after_comment(k);
      else break;
    }
    return k;
  }
  std::size_t after_quoted(std::size_t k) const {
    const char quote = at(k);
    for (++k; k < s_.size(); ++k) {
      if (at(k) == '\\') ++k;
      else if (at(k) == quote) return k + 1;
      else if (at(k) == '\n') return k;  // unterminated: the compiler says so
    }
    return s_.size();
  }
  std::size_t after_number(std::size_t k) const {
    for (++k; k < s_.size(); ++k) {
      const char c = at(k);
      if (ident_char(c) || c == '.') continue;
      if (c == '\'' && ident_char(at(k + 1))) continue;  // a digit separator: 1'000'000
      if ((c == '+' || c == '-') && std::string_view("eEpP").find(at(k - 1)) != std::string_view::npos) continue;
      break;
    }
    return k;
  }
  // A raw string R"delim(...)delim", from its opening quote at k.
  std::size_t after_raw_string(std::size_t k) const {
    std::string closing = ")";
    for (++k; k < s_.size() && at(k) != '(' && at(k) != '\n' && closing.size() <= 17; ++k) closing += at(k);
    closing += '"';
    for (++k; k + closing.size() <= s_.size(); ++k) {
      bool match = true;
      for (std::size_t m = 0; m < closing.size() && match; ++m) match = at(k + m) == closing[m];
      if (match) return k + closing.size();
    }
    return s_.size();
  }

  void token(char c) {
    if (c == '"' || c == '\'') {
      i_ = after_quoted(i_);
    } else if (std::isdigit(static_cast<unsigned char>(c)) || (c == '.' && std::isdigit(static_cast<unsigned char>(at(i_ + 1))))) {
      i_ = after_number(i_);
    } else if (c == '\\' && (at(i_ + 1) == 'u' || at(i_ + 1) == 'U')) {
      flag(i_, kUcn);
      i_ += 2;
    } else if (ident_start(c)) {
      identifier();
    } else if (c == '[' || (c == '<' && at(i_ + 1) == ':')) {  // '<:' is the digraph of '['
      const std::size_t width = c == '[' ? 1 : 2;
      const std::size_t k = skip_blank(i_ + width, true);
      if (at(k) == '[' || (at(k) == '<' && at(k + 1) == ':')) flag(i_, std::string("[[...]] ") + kAttribute);
      i_ += width;
    } else {
      ++i_;
    }
  }

  void identifier() {
    const std::size_t start = i_;
    std::string word;
    while (i_ < s_.size() && ident_char(at(i_))) word += at(i_++);
    if (at(i_) == '"' && (word == "R" || word == "u8R" || word == "uR" || word == "UR" || word == "LR")) {
      flag(start, kRawString);
      i_ = after_raw_string(i_);
      return;
    }
    if (word == "asm" || word == "__asm" || word == "__asm__") flag(start, word + ": " + kAsm);
    else if (word.starts_with("__attribute") || word == "__declspec") flag(start, word + ": " + kAttribute);
    else if (word == "_Pragma") flag(start, word + ": " + kPragma);
    else if (word.starts_with("__builtin_")) flag(start, word + ": " + kBuiltin);
    else if (word == "extern") {
      const std::size_t k = skip_blank(i_, true);
      if (!(at(k) == '"' && at(k + 1) == 'C' && at(k + 2) == '"')) flag(start, kExtern);
    }
  }

  // A directive whose '#' is at `hash` and whose name may start at `next`; returns where scanning
  // goes on (the rest of the line is code to the rules: a #define's body too).
  std::size_t directive(std::size_t hash, std::size_t next) {
    std::size_t k = skip_blank(next, false);
    if (at(k) == '\n' || k >= s_.size() || std::isdigit(static_cast<unsigned char>(at(k))))
      return k;  // the null directive, or a line marker (# 12 "file"), as #line
    if (!ident_start(at(k))) return k;  // not a directive the compiler knows: it says so
    std::string name;
    while (k < s_.size() && ident_char(at(k))) name += at(k++);
    if (name == "include") return include(hash, k);
    if (name == "pragma") flag(hash, "#pragma: " + std::string(kPragma));
    else if (!kAllowedDirectives.contains(name))
      flag(hash, "#" + name +
                     " is not allowed (only #include <cuda_runtime.h>, #define, #undef, #if, #ifdef, #ifndef, "
                     "#elif, #else, #endif, #error, #warning, #line)");
    return k;
  }

  std::size_t include(std::size_t hash, std::size_t k) {
    k = skip_blank(k, false);
    if (at(k) == '<') {
      std::string header;
      std::size_t end = k + 1;
      while (end < s_.size() && at(end) != '>' && at(end) != '\n') header += at(end++);
      if (at(end) == '>') {
        if (!kAllowedHeaders.contains(header))
          flag(hash, "#include <" + header + ">: " + kHeaders + "; this lab's host code calls the CUDA runtime, "
                     "nothing else");
        return end + 1;
      }
    }
    flag(hash, std::string("#include of anything but <header>: ") + kHeaders);
    while (k < s_.size() && at(k) != '\n') ++k;
    return k;
  }

  std::vector<Char> s_;
  std::size_t i_ = 0;
  std::vector<RuleViolation> out_;
};

// Trigraphs are read on the text before anything else (phase 1, where a compiler still replaces
// them), so one in a comment or a literal could change where the compiler's comment or string ends.
std::vector<RuleViolation> trigraphs(std::string_view text) {
  std::vector<RuleViolation> out;
  int line = 1;
  for (std::size_t i = 0; i < text.size(); ++i) {
    if (text[i] == '\n') ++line;
    if (text[i] == '?' && i + 2 < text.size() && text[i + 1] == '?' &&
        std::string_view("=/'()!<>-").find(text[i + 2]) != std::string_view::npos)
      out.push_back({line, kTrigraph});
  }
  return out;
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
  std::vector<RuleViolation> out = trigraphs(text);
  for (RuleViolation& v : Scanner(text).run()) out.push_back(std::move(v));
  std::stable_sort(out.begin(), out.end(), [](const RuleViolation& a, const RuleViolation& b) { return a.line < b.line; });
  return out;
}

std::string source_rules_message(const std::filesystem::path& file, const std::vector<RuleViolation>& violations) {
  if (violations.empty()) return "";
  constexpr std::size_t kMaxLines = 20;
  std::string text;
  for (std::size_t i = 0; i < violations.size() && i < kMaxLines; ++i)
    text += file.string() + ":" + std::to_string(violations[i].line) + ": " + violations[i].what + "\n";
  if (violations.size() > kMaxLines) text += "... and " + std::to_string(violations.size() - kMaxLines) + " more\n";
  return text + "(the lab's rules are in its README.md, \"What your file may contain\")";
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
