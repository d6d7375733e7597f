// The rules on a kernel-text lab's file (runners nvrtc, pycuda, cuda-core: labs 1-4, 6, 7, 9): the
// file is device code compiled alone, from its own text, so nothing in it may make the compiler
// read another file or reach past the text. The rule lexer's kernel-text dialect
// (lab/runners/source_rules.h) refuses, naming file:line and the construct, one line each:
//  * every directive but #define, #undef, #if, #ifdef, #ifndef, #elif(def/ndef), #else, #endif,
//    #error, #warning, #line and #pragma: so #include, #include_next, #import and #embed, in any
//    spelling the compiler reads as one (a line splice after the '#', the digraph %:, the trigraph
//    ??=, an #include of a macro that names a file: the directive itself is refused, whatever follows);
//  * __has_include, __has_include_next and __has_embed (they ask whether a file of the grading
//    machine exists), wherever they appear, #if 0 or not;
//  * _Pragma and __pragma (a #pragma the text does not show), and any #pragma but
//    `#pragma unroll` (optionally with a constant: a number, a name, parentheses and arithmetic)
//    and `#pragma nounroll`, which the lab 4 and lab 9 solutions use;
//  * token pasting (##: it builds an identifier, _Pragma or __has_include, that the text does not
//    show), universal character names outside literals (the same, by another spelling), raw string
//    literals (nothing needs one, and a lexer that read one differently from the compiler could
//    hide a directive in it) and trigraphs.
// #line stays allowed: it opens nothing, it only renames the file and line the compiler's messages
// name, which only the student reads (PyCUDA's runner used it for that).
// The rules are checked where the text is read, before any compile (nvrtc/lab_kernel.h's
// compile_student_kernel): in the parent's precheck, and again in the child, on the text it then
// hands to the compile process, so a file changed in between is checked as it is compiled.
#pragma once
#include <filesystem>
#include <string>
#include <string_view>
#include <vector>

#include "lab/runners/source_rules.h"

namespace lb::lab {

const SourceDialect& kernel_text_dialect();

// Every kernel-text rule the text breaks, in line order.
std::vector<RuleViolation> kernel_text_rule_violations(std::string_view text);

// "FILE:LINE: what" for each, then where the rules are written; empty when there are none.
std::string kernel_text_rules_message(const std::filesystem::path& file, const std::vector<RuleViolation>& violations);

}  // namespace lb::lab
