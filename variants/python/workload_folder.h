// A user's workload folder (docs/your-own-workload.md) read and checked by workloads/folder/
// workload_folder.py in the embedded interpreter: its JSON Schema, kernels.cu's parameters against
// workload.json, reference.py and inputs.py importable, and an NVRTC compile whose error names
// kernels.cu and its line. Here, below the command line, because the check needs the interpreter.
#pragma once
#include <memory>
#include <string>
#include <vector>

#include "workloads/folder/folder_workload.h"

namespace lb {

// What `list --workload-dir` shows of a folder that passed every check.
struct WorkloadFolderSummary {
  std::string name;
  std::string summary;
  std::string size_form;                   // "n", "MxN" or "MxNxK"
  std::vector<std::string> default_sizes;  // as -s takes them
  std::vector<std::string> kernels;        // the extern "C" kernels, in launch order
  std::vector<std::string> python_layers;  // the Python layers the folder implements (cupy.py, ...)
  std::string content_hash;                // sha256 of the folder's files, for the results' context
};

// Why this process cannot read a workload folder: no embedded interpreter, or workload_folder.py
// cannot be imported in it (NumPy missing, as in a CPU-only pip install: one line naming what to
// install); empty when it can.
std::string workload_folders_unavailable_reason();

// The folder read and checked (its JSON Schema, kernels.cu's parameters against workload.json by
// name, order and type, reference.py and inputs.py importable, an NVRTC compile whose error names
// kernels.cu and its line), as a workload that is not registered: what `list --workload-dir` then
// checks at each size (FolderWorkload::check_size, check_reference). UsageError with
// workload_folder.py's one line ("DIR/workload.json: buffers[1].type: ...") for a bad folder, and
// with the reason where this build has no embedded Python or the interpreter lacks a package.
std::unique_ptr<FolderWorkload> read_workload_folder(const std::string& dir);
WorkloadFolderSummary folder_summary(const FolderWorkload& w);

// `run --workload-dir DIR`: the folder checked as above, then registered as a workload
// (register_workload) whose problem, formulas and check are workload_folder.py's, with its
// variants: one per layer that runs a folder's kernel text (Layer::folder_variant) and one per
// Python implementation in the folder (cupy.py, numba.py, ... on that layer). The same folder
// again (by its canonical path) returns the workload registered the first time. UsageError as
// above, and for a name a registered workload already has (another folder's, or a built-in one's).
const FolderWorkload& register_workload_folder(const std::string& dir);

}  // namespace lb
