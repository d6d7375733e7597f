// The rule lexer that a runner's rules on a student's C++ text are written in: it reads the text
// as the compiler's first phases do (trigraphs, line splices, comments, literals, digraphs), token
// by token as far as rules need, and asks a dialect about each construct that can reach past the
// text: a directive, an identifier, token pasting, attributes, universal character names, raw
// strings, extern. Two dialects use it:
//  * the host trip's (lab/runners/host_trip/trip_rules.h): host code that may call the CUDA runtime;
//  * kernel text's (lab/runners/nvrtc/kernel_text_rules.h): device code compiled alone, which
//    opens no file of the grading machine.
// A rule is about code: "asm" in a comment is fine; #if 0 hides nothing (both branches are read).
// Pure functions of the text, tested without a GPU (tests/test_lab_transfer.cpp, tests/test_lab_kernel_text.cpp).
#pragma once
#include <filesystem>
#include <functional>
#include <map>
#include <set>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace lb::lab {

// One rule broken: the line (1-based) where the construct starts, and what it is and why it is not
// allowed, in one line.
struct RuleViolation {
  int line = 0;
  std::string what;
  friend bool operator==(const RuleViolation&, const RuleViolation&) = default;
};

// What one dialect allows. A construct whose text below is empty is allowed.
struct SourceDialect {
  // Directives allowed as they are (#define, #if, ...), and the line for any other:
  // "#NAME " + other_directive.
  std::set<std::string, std::less<>> directives;
  std::string other_directive;
  // #include <HEADER> of these headers is allowed; any other: "#include <HEADER>: " + include_refused,
  // and an #include of another form (a quoted path, a macro): include_other.
  std::set<std::string, std::less<>> headers;
  std::string include_refused;
  std::string include_other;
  // #pragma: the words after it (the rest of its line) -> why not; empty when allowed.
  std::function<std::string(std::string_view rest)> pragma;
  // Identifiers out wherever they appear in code, and identifiers starting with a prefix:
  // "WORD: why" each.
  std::map<std::string, std::string, std::less<>> identifiers;
  std::vector<std::pair<std::string, std::string>> identifier_prefixes;
  std::string paste;           // ## (and %:%:)
  std::string attribute;       // [[ ... ]] (and <: <:)
  std::string ucn;             // \u, \U outside a literal
  std::string raw_string;      // R"(...)"
  std::string trigraph;        // ??= and the others
  std::string extern_not_c;    // extern other than extern "C"
  std::string line_marker;     // a GNU line marker, # 12 "file" (#line is a directive above)
  // The last line of a message: where the student reads the rules.
  std::string where_the_rules_are;
};

// Every rule of `dialect` the text breaks, in line order.
std::vector<RuleViolation> rule_violations(std::string_view text, const SourceDialect& dialect);

// "FILE:LINE: what" for each violation (at most 20), one a line, then dialect.where_the_rules_are;
// empty when there are none.
std::string rules_message(const std::filesystem::path& file, const std::vector<RuleViolation>& violations,
                          const SourceDialect& dialect);

}  // namespace lb::lab
