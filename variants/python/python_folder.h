// Between a folder workload (workloads/folder/folder_workload.h, read by workload_folder.py) and
// the Python variants that run it: the folder's Python object, the harness's bytes as typed NumPy
// arrays by buffer name (no copies), and the variant factories. Inside variants/python only.
#pragma once
#include <pybind11/pybind11.h>

#include <span>
#include <string>

#include "variants/variant.h"
#include "workloads/folder/folder_workload.h"

namespace lb {

// The variant of folder workload `w` that the folder's own Python implementation `file` (cupy.py,
// numba.py, ...) is, registered under its layer. Like a Python layer's folder_kernel.py variant
// (Layer::folder_variant), its allocate() gets setup.workload (the WorkloadFolder), upload() a
// workload_folder.Problem (inputs, scalars, outputs by name), download() a dict of the outputs to fill.
VariantFactory python_folder_variant_factory(const std::string& file, const FolderWorkload& w);

namespace python {

// The WorkloadFolder that workload_folder.py read `w` as.
pybind11::object folder_object(const FolderWorkload& w);
// Memoryviews of every buffer's bytes in workload.json's order: inputs from `problem`, outputs from
// `outputs` (HostProblem::output's packing); only the outputs' writable, and only when asked.
pybind11::list folder_views(const FolderWorkload& w, const HostProblem& problem, std::span<const float> outputs,
                            bool writable);
pybind11::list output_views(const FolderWorkload& w, const Shape& s, std::span<const float> outputs, bool writable);
// workload_folder.Problem over `problem`'s bytes; the outputs' starting contents read-only.
pybind11::object folder_problem(const FolderWorkload& w, const HostProblem& problem);
// {output name: writable array over `out`'s bytes}.
pybind11::object folder_outputs(const FolderWorkload& w, const Shape& s, std::span<float> out);

}  // namespace python
}  // namespace lb
