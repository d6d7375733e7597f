// The student's file of the host trip (runner host-trip), built in the lab child and loaded in its
// trip process (trip_process.h):
// in a private temporary folder, removed when the build is done,
//   1. the source rules (lab/runners/host_trip/trip_rules.h), again: the file may have changed since the parent
//      read it;
//   2. nvcc -O3 -arch=sm_<cc> -Xcompiler -fPIC -c FILE -o student.o, on the file's path as given,
//      so that nvcc's messages name the student's file and line;
//   3. the object's undefined symbols (its ELF symbol table) against the allowed calls
//      (lab/runners/host_trip/trip_rules.h);
//   4. nvcc -shared -cudart shared -o student.so student.o: the shared CUDA runtime, the one
//      layerbench links, so the student's calls and the runner's share one runtime and the
//      device's primary context;
//   5. dlopen (RTLD_NOW | RTLD_LOCAL: nothing of the student's is visible to the runner's own
//      lookups) and the five functions by name.
// nvcc: the CUDA compiler CMake found (LB_NVCC), else nvcc where find_cuda_tool finds it.
#pragma once
#include <filesystem>
#include <memory>
#include <string>
#include <vector>

#include "lab/runners/host_trip/trip.h"

namespace lb::lab {

struct TripBuild {
  int sm = 90;             // compute capability, 90 for 9.0
  bool line_info = false;  // -lineinfo (compute-sanitizer names file:line)
  bool debug = false;      // -G: device code unoptimised (under compute-sanitizer, as the other labs)
};

class TempDir;

// What was built: the library, in a private folder removed with the last copy of this object, and
// the compile as the student would type it and what nvcc took (a one-time cost, shown, never graded).
struct StudentLibrary {
  std::shared_ptr<const TempDir> folder;
  std::filesystem::path library;
  std::string command;
  double compile_ms = 0;
};

// Steps 1-4 above, in the lab child, which holds the grade's keys and loads nothing of the
// student's. StudentCompileError (lab/child/student_program.h) for a rule broken, a compile or link
// error or a forbidden call: what() is what the student reads.
StudentLibrary build_student_library(const std::filesystem::path& file, const TripBuild& build);

// Step 5, in the trip process (trip_process.h): StudentCompileError when the library does not load
// or lacks one of the five functions (named as `file`'s).
std::unique_ptr<Trip> load_student_trip(const std::filesystem::path& library, const std::filesystem::path& file);

// Steps 1-3 only, the object left at `object` (no GPU needed: tests run them with the local nvcc).
// Returns the nvcc command line as the student would type it.
std::string compile_and_check_student_file(const std::filesystem::path& file, const std::filesystem::path& object,
                                           const TripBuild& build);

// The symbols an ELF relocatable object (or shared object) uses and does not define: undefined
// global and weak symbols of its symbol table. std::runtime_error when it is not a 64-bit ELF file.
std::vector<std::string> undefined_symbols(const std::filesystem::path& object);

// The nvcc the build runs: LB_NVCC when that file exists, else find_cuda_tool("nvcc"); empty
// with `why_not` set when there is none.
std::filesystem::path find_nvcc(std::string* why_not);

// Reads the file and checks its text (the parent's precheck and step 1). UsageError when it cannot
// be read; StudentCompileError naming file:line of each rule broken.
void check_student_source(const std::filesystem::path& file);

}  // namespace lb::lab
