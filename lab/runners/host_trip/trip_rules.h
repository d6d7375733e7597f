// The integrity rules of a lab whose student writes host code (runner host-trip, labs/08-transfer;
// its README states them for students). The student's file is compiled with nvcc and loaded into
// the timing child, where it runs beside the runner's own code. Two checks keep it to the CUDA
// runtime calls the lesson needs:
//  * on the text (here, in the parent before any GPU is touched, and again in the child before
//    nvcc runs): only <cuda_runtime.h> may be included; no inline assembly (it could make system
//    calls that no symbol shows), no attributes (__attribute__, [[...]], __declspec: a constructor
//    runs code when the file is loaded, an alias gives a function another's name), no #pragma or
//    _Pragma (OpenMP threads, optimisation and link options), no ## (it builds names the text does
//    not show), no #line or line marker (gcc prints an error's source line from the file one names:
//    any file the grader can read), no __builtin_ functions, no universal character names outside literals (they spell
//    names the text does not show), and extern only as extern "C";
//  * on the compiled object (the child, lab/runners/host_trip/trip_build.h): every function it calls must be one
//    of the allowed runtime calls, nvcc's own launch and registration glue, or what the C++
//    compiler emits by itself (memcpy, operator new, static initialisation guards): so no threads,
//    no processes, no files, no clocks, whatever header declared them.
// The rules on the text are this lab's dialect of the rule lexer (lab/runners/source_rules.h), which
// kernel-text labs share with a dialect of their own.
// Pure functions of text and symbol names, tested without a GPU (tests/test_lab_transfer.cpp).
#pragma once
#include <filesystem>
#include <string>
#include <string_view>
#include <vector>

#include "lab/runners/source_rules.h"

namespace lb::lab {

// Every rule the text breaks, in order (after line splicing, outside comments and literals: a rule
// is about code, so "asm" in a comment is fine; #if 0 does not hide anything).
std::vector<RuleViolation> source_rule_violations(std::string_view text);

// "FILE:LINE: what" for each violation (at most 20), one a line, then a line saying where the
// rules are; empty when there are none.
std::string source_rules_message(const std::filesystem::path& file, const std::vector<RuleViolation>& violations);

// The functions a submission's object may call, by their (unmangled C) names, and what they are.
struct AllowedCall {
  const char* name;
  const char* group;  // "runtime", "nvcc", "compiler"
};
const std::vector<AllowedCall>& allowed_calls();

// The undefined symbols (what the object calls or reads from elsewhere) that are not allowed.
std::vector<std::string> forbidden_symbols(const std::vector<std::string>& undefined);

// "FILE: calls NAME, which this lab does not allow" for each (demangled where C++), then the
// allowed runtime calls.
std::string forbidden_symbols_message(const std::filesystem::path& file, const std::vector<std::string>& forbidden);

}  // namespace lb::lab
