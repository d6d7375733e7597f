// lb_native: what the Python layers take from the C++ side instead of keeping a copy of their own.
//  - LAUNCH_CONFIG: the launch constants of workloads/launch_config.h, as this build compiled them
//    (the macros themselves, not a parse of the file), which lb_shared's launch shapes use;
//  - KernelCache and cached_cubin: the one on-disk cache of compiled kernels
//    (variants/nvrtc/kernel_cache.h), one key scheme and one file format for the driver layer's
//    NVRTC and the Python layers' own compilers, whose compile is a Python callback.
//
// Built twice from this file: into layerbench as an embedded module (PYBIND11_EMBEDDED_MODULE, on
// Python's builtin table, so it wins over any file of the same name on sys.path), and as an
// extension module in <build>/python (LB_NATIVE_EXTENSION) for Python outside layerbench: the
// tests in tests/python and a variant run by hand import it from there (lb_shared finds it).
#include <pybind11/functional.h>
#include <pybind11/pybind11.h>
#include <pybind11/stl.h>

#ifndef LB_NATIVE_EXTENSION
#include <pybind11/embed.h>
#endif

#include <string>
#include <utility>
#include <vector>

#include "variants/nvrtc/kernel_cache.h"
#include "variants/gpu_launch.h"
#include "workloads/launch_config.h"

namespace py = pybind11;

namespace {

using lb::nvrtc::KernelCache;
using lb::nvrtc::KernelKey;
using Headers = std::vector<std::pair<std::string, std::string>>;

// The compiled-in launch constants. A constant that this build's launch_config.h does not define
// is left out, so that a layer asking for it fails with a KeyError naming it, and no other layer.
py::dict launch_config() {
  py::dict config;
#define LB_NATIVE_CONSTANT(name) config[#name] = static_cast<long long>(name)
  LB_NATIVE_CONSTANT(LB_BLOCK);
  LB_NATIVE_CONSTANT(LB_BLOCKS_PER_SM);
  LB_NATIVE_CONSTANT(LB_REDUCE_UNROLL);
  LB_NATIVE_CONSTANT(LB_MM_BM);
  LB_NATIVE_CONSTANT(LB_MM_BN);
  LB_NATIVE_CONSTANT(LB_MM_THREADS);
  LB_NATIVE_CONSTANT(LB_MM_SPLIT_PARTS);
#ifdef LB_TR_TILE
  LB_NATIVE_CONSTANT(LB_TR_TILE);
#endif
#ifdef LB_TR_BLOCK_X
  LB_NATIVE_CONSTANT(LB_TR_BLOCK_X);
#endif
#ifdef LB_TR_ROWS
  LB_NATIVE_CONSTANT(LB_TR_ROWS);
#endif
#undef LB_NATIVE_CONSTANT
  return config;
}

KernelKey key_of(const std::string& name, const std::string& text, const std::vector<std::string>& options, int sm,
                 const std::string& compiler, const Headers& headers) {
  return KernelKey{compiler, name, text, headers, options, sm};
}

void define_lb_native(py::module_& m, bool embedded) {
  m.doc() = "The C++ side of the Python layers: launch constants and the kernel cache (variants/python/lb_native.cpp)";
  m.attr("EMBEDDED") = embedded;  // True inside layerbench
  m.attr("LAUNCH_CONFIG") = launch_config();

  py::class_<KernelCache>(m, "KernelCache",
                          "Where compiled kernels are kept (variants/nvrtc/kernel_cache.h); disabled: none are")
      .def(py::init([](const std::string& dir, bool enabled) {
             return KernelCache::of(dir, enabled);
           }),
           py::arg("dir") = "", py::arg("enabled") = true)
      .def_readonly("dir", &KernelCache::dir)
      .def_readonly("enabled", &KernelCache::enabled)
      .def("__repr__", [](const KernelCache& c) {
        return "KernelCache(" + (c.enabled ? "'" + c.dir + "'" : std::string("off")) + ")";
      });
  m.def(
      "matmul_grid",
      [](long long m, long long n, long long k, int sm_count) {
        const lb::MatmulGrid g = lb::matmul_grid(m, n, k, sm_count);
        return py::make_tuple(g.x, g.y, g.z);
      },
      py::arg("m"), py::arg("n"), py::arg("k"), py::arg("sm_count"),
      "matmul_tiled's grid (tiles along N, tiles along M, splits of K): the C++ layers' (variants/gpu_launch.h)");
  m.def("default_cache_dir", &KernelCache::default_dir,
        "$LAYERBENCH_KERNEL_CACHE, else $XDG_CACHE_HOME/layerbench/kernels, else ~/.cache/layerbench/kernels");

  m.def(
      "cache_key",
      [](const std::string& name, const std::string& text, const std::vector<std::string>& options, int sm,
         const std::string& compiler, const Headers& headers) {
        return lb::nvrtc::cache_key(key_of(name, text, options, sm, compiler, headers));
      },
      py::arg("name"), py::arg("text"), py::arg("options"), py::arg("sm"), py::arg("compiler"),
      py::arg("headers") = Headers{}, "The cache key of these compile inputs (32 hex digits), as the C++ compiles make it");

  m.def(
      "cached_cubin",
      [](const KernelCache& cache, const std::string& name, const std::string& text,
         const std::vector<std::string>& options, int sm, const std::string& compiler, const py::function& compile,
         const Headers& headers) {
        const lb::nvrtc::CachedCubin found =
            lb::nvrtc::cached_cubin(cache, key_of(name, text, options, sm, compiler, headers), [&] {
              // The layer's own compiler; a Python exception it raises goes back to the caller as
              // it was raised (error_already_set), and nothing is written to the cache.
              py::object cubin = compile();
              if (!py::isinstance<py::bytes>(cubin)) cubin = py::module_::import("builtins").attr("bytes")(cubin);
              return cubin.cast<std::string>();
            });
        return py::make_tuple(py::bytes(found.cubin), found.from_cache, found.ms, found.cache_file);
      },
      py::arg("cache"), py::arg("name"), py::arg("text"), py::arg("options"), py::arg("sm"), py::arg("compiler"),
      py::arg("compile"), py::arg("headers") = Headers{},
      "(CUBIN, from_cache, ms, file): the cached CUBIN of these compile inputs, else compile()'s, written to the "
      "cache. `compiler` names the compiler and its version: it is part of the key.");
}

}  // namespace

#ifdef LB_NATIVE_EXTENSION
PYBIND11_MODULE(lb_native, m) { define_lb_native(m, false); }
#else
PYBIND11_EMBEDDED_MODULE(lb_native, m) { define_lb_native(m, true); }
#endif
