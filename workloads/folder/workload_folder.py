"""A user's workload as a folder (docs/your-own-workload.md): workload.json (validated against
workload.schema.json beside this file), kernels.cu, reference.py, and optionally inputs.py and one
file per Python layer (cupy.py, numba.py, ...).

load(folder) reads and checks all of it and returns a WorkloadFolder, or raises WorkloadFolderError
whose text is one line naming the file and the field. The same object draws a case's inputs
(draw_problem: the harness's counter-based generator, workloads/random_draw.h, bit for bit, unless
inputs.py), computes the reference (reference.py, in float64 / exact integers) and checks a
layer's outputs against it (check).

Validation is jsonschema's (a well-kept validator, already pinned in python/requirements.txt),
because a folder workload needs the interpreter anyway (reference.py) and the same schema then
serves the command line, the tests and any editor. Formulas are parsed with the standard library's
`ast` and evaluated over a whitelist of nodes: no eval()."""
from __future__ import annotations

import hashlib
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np

DIMS_OF_FORM = {"n": ("n",), "MxN": ("m", "n"), "MxNxK": ("m", "n", "k")}
DTYPES = {"float32": np.float32, "float64": np.float64, "int32": np.int32, "int64": np.int64}
C_TYPES = {"float32": "float", "float64": "double", "int32": "int", "int64": "long long"}
SIZE_ARG_TYPE = "long long"  # m, n and k are passed as 64-bit integers


from workload_formula import DIMS, Formula, WorkloadFolderError  # noqa: E402 (re-exported)
from workload_draws import draw_buffer, range_bounds, size_text, starting_contents, stream_key  # noqa: E402 (re-exported)
from workload_kernel import check_parameters, kernel_parameters, nvrtc_check  # noqa: E402 (re-exported)
from workload_checks import SizeChecks, full_size  # noqa: E402 (full_size re-exported)
from workload_json import SCHEMA_PATH, read_spec  # noqa: E402 (SCHEMA_PATH re-exported)
from workload_values import input_array, reference_array, scalar_value, tolerance_rule  # noqa: E402
from workload_files import (PYTHON_LAYER_FILES, call_user, content_hash, load_user_module,  # noqa: E402 (re-exported)
                            positional_count, python_layer_files, python_variant)


# --- the folder ------------------------------------------------------------------------------------

@dataclass(frozen=True)
class Buffer:
    name: str
    type: str
    extents: tuple[Formula, ...]
    role: str                          # "input", "output" or "inout" (drawn, updated in place, checked)
    draw: dict = field(default_factory=dict)  # drawn buffers: {"kind": "unit" | "integers" | "range", ...}
    starts_as: str = "poison"          # outputs: "poison" or "zero"
    may_be_nan: bool = False           # checked float buffers: NaN where the reference has NaN, exactly

    @property
    def drawn(self) -> bool:
        """Drawn before a case: an input, or an in/out buffer (its drawn values are the reference's input)."""
        return self.role in ("input", "inout")

    @property
    def checked(self) -> bool:
        """Checked after a case against reference.py's result for it: an output or an in/out buffer."""
        return self.role in ("output", "inout")

    @property
    def dtype(self):
        return DTYPES[self.type]

    @property
    def is_float(self) -> bool:
        return self.type.startswith("float")

    def shape(self, size: dict) -> tuple[int, ...]:
        return tuple(f.whole(**size) for f in self.extents) or (1,)


@dataclass(frozen=True)
class Scalar:
    name: str
    type: str
    value: float | int

    @property
    def typed(self):
        """The value as a NumPy scalar of its type (what a kernel's parameter of that type reads)."""
        return DTYPES[self.type](self.value)


@dataclass(frozen=True)
class KernelArgument:
    """One parameter of the kernel, in order: a buffer, a scalar or a dimension of the size."""
    name: str
    kind: str     # "input", "output", "inout", "scalar" or "size"
    c_type: str   # what a launcher passes it as: "const float*", "int*", "double", "long long"


@dataclass(frozen=True)
class FolderKernel:
    """One kernel of the folder's sequence (`kernel` and `launch`, or each of `kernels`): launched in
    order, all of them one case."""
    name: str
    arguments: list[KernelArgument]
    block: tuple[int, ...]
    grid: list[Formula] | None   # None: grid-stride
    shared_bytes: int
    field: str                   # where workload.json says it: "kernel" or "kernels[1]"

    def grid_blocks(self, size: dict) -> tuple[int, ...] | None:
        """Blocks along x, y, z at `size`; None for a grid-stride kernel (the launcher fills the device)."""
        return None if self.grid is None else tuple(f.whole(**size) for f in self.grid)


@dataclass
class WorkloadFolder(SizeChecks):
    path: Path
    spec: dict
    name: str
    summary: str
    size_form: str
    default_sizes: list[str]
    buffers: list[Buffer]
    scalars: list[Scalar]
    kernels: list[FolderKernel]  # launched in order, timed together
    bytes_read: Formula
    bytes_written: Formula
    flops: Formula
    figure: str
    kernel_text: str
    content_hash: str
    python_layers: dict[str, Path]
    _reference: Any = None
    _inputs: Any = None
    _inputs_takes_draw: bool = False
    _expected_for: Any = None   # (key, reference, tolerances) of the last problem checked

    @property
    def inputs(self) -> list[Buffer]:
        """The drawn buffers (inputs and in/out ones), in workload.json's order: reference.py's inputs."""
        return [b for b in self.buffers if b.drawn]

    @property
    def outputs(self) -> list[Buffer]:
        """The checked buffers (outputs and in/out ones), in workload.json's order."""
        return [b for b in self.buffers if b.checked]

    @property
    def kernel_names(self) -> str:
        return ", ".join(k.name for k in self.kernels)

    def grid_blocks(self, size: dict, kernel: int = 0) -> tuple[int, ...] | None:
        return self.kernels[kernel].grid_blocks(size)

    # --- a case ----------------------------------------------------------------------------------
    def draw_problem(self, size: dict, seed: int) -> "Problem":
        """A case's inputs and the outputs' starting contents. Each drawn buffer is inputs.py's if
        the folder has one and it returns that buffer, else the harness's generator
        (random_draw.h) keyed by `seed` and the buffer's position among the drawn ones, as its
        `draw` says. An in/out buffer starts as its drawn values."""
        size = full_size(size)
        self.check_extents(size)
        scalars = {s.name: s.typed for s in self.scalars}
        streams = {b.name: stream for stream, b in enumerate(self.inputs)}
        by_name = {b.name: b for b in self.inputs}

        def harness_draw(name):
            """The harness's draw of input `name` (as its `draw` says): what inputs.py is offered."""
            if name not in by_name:
                raise ValueError(f"{name!r} is not a drawn buffer ({', '.join(by_name)})")
            return draw_buffer(by_name[name], size, seed, streams[name])

        inputs = {}
        if self._inputs is not None:
            path = self.path / "inputs.py"
            args = (dict(size), np.random.default_rng(seed)) + ((harness_draw,) if self._inputs_takes_draw else ())
            drawn = call_user(path, "inputs", self._inputs.inputs, *args)
            if not isinstance(drawn, dict):
                raise WorkloadFolderError(path, "inputs()", f"returned {type(drawn).__name__}, not a dict of buffer name -> array")
            for i, b in enumerate(self.buffers):
                if b.name in drawn and "draw" in self.spec["buffers"][i]:
                    raise WorkloadFolderError(path, f"inputs()[{b.name!r}]",
                                              f"replaces the draw workload.json's buffers[{i}].draw gives it, which would be "
                                              f"ignored: remove that draw, or leave {b.name} to it")
            returned = [b for b in self.inputs if b.name in drawn]
            inputs = self._checked_arrays(drawn, returned, "inputs.py", "inputs()", size)
        for b in self.inputs:
            if b.name not in inputs:
                inputs[b.name] = self._harness_draw(b, size, seed, streams[b.name])
        outputs = {b.name: inputs[b.name].copy() if b.drawn else starting_contents(b, size) for b in self.outputs}
        return Problem(size, seed, inputs, scalars, outputs)

    def _harness_draw(self, b: Buffer, size: dict, seed: int, stream: int) -> np.ndarray:
        try:
            return draw_buffer(b, size, seed, stream)
        except ValueError as e:
            where = f"buffers[{self.buffers.index(b)}].draw"
            raise WorkloadFolderError(self.path / "workload.json", where, str(e).removeprefix("draw: ")) from None

    def reference(self, problem: "Problem") -> dict[str, np.ndarray]:
        """reference.py's outputs, from float64 copies of float inputs (integers as int64)."""
        wide = {name: widen(a) for name, a in problem.inputs.items()}
        got = call_user(self.path / "reference.py", "reference", self._reference.reference,
                        wide, dict(problem.scalars), dict(problem.size))
        return self._checked_arrays(got, self.outputs, "reference.py", "reference()", problem.size)

    def tolerances(self, problem: "Problem") -> dict[str, tuple[np.ndarray, float]]:
        """reference.py's tolerance rule: for each float output, (scale, bound): element i passes
        when |got_i - expected_i| <= bound * scale_i. Integer outputs are exact."""
        floats = [b for b in self.outputs if b.is_float]
        if not floats:
            return {}
        wide = {name: widen(a) for name, a in problem.inputs.items()}
        rule = call_user(self.path / "reference.py", "tolerance", self._reference.tolerance,
                         wide, dict(problem.scalars), dict(problem.size))
        where = "reference.py"
        if not isinstance(rule, dict):
            raise WorkloadFolderError(self.path / where, "tolerance()", f"returned {type(rule).__name__}, not a dict of output -> (scale, bound)")
        for name in rule:
            if name not in {b.name for b in floats}:
                exact = name in {b.name for b in self.outputs}
                raise WorkloadFolderError(self.path / where, f"tolerance()[{name!r}]",
                                          "is an integer output, checked exactly: its rule would be ignored" if exact else
                                          f"is no float output of workload.json ({', '.join(b.name for b in floats)})")
        result = {}
        for b in floats:
            if b.name not in rule:
                raise WorkloadFolderError(self.path / where, "tolerance()", f"gives no rule for output {b.name!r}")
            try:
                scale, bound = rule[b.name]
                bound = float(bound)
                scale = np.broadcast_to(np.asarray(scale, dtype=np.float64), b.shape(problem.size))
            except (TypeError, ValueError) as e:
                raise WorkloadFolderError(self.path / where, f"tolerance()[{b.name!r}]", f"not (scale, bound) for shape {b.shape(problem.size)}: {e}") from None
            tolerance_rule(b, scale, bound, self.path / where, f"tolerance()[{b.name!r}]")
            result[b.name] = (scale, bound)
        return result

    def expected(self, problem: "Problem"):
        """reference.py's outputs and tolerance rule for `problem`, computed once per problem: every
        layer's case of one size checks against the same drawn problem (the harness draws it once
        per workload and size), so the reference runs once per size, not once per layer. Keyed by
        the seed, the size and a sample of every input's bytes (a different problem is never
        matched by chance: its seed or its bytes differ)."""
        key = (problem.seed, tuple(sorted(problem.size.items())),
               tuple(hashlib.blake2b(np.ascontiguousarray(a).reshape(-1)[::max(1, a.size // 4096)].tobytes(),
                                     digest_size=16).digest() for a in problem.inputs.values()))
        if self._expected_for is None or self._expected_for[0] != key:
            self._expected_for = (key, self.reference(problem), self.tolerances(problem))
        return self._expected_for[1], self._expected_for[2]

    def check(self, problem: "Problem", got: dict[str, np.ndarray]) -> list["Verdict"]:
        """One verdict per output: float outputs within reference.py's bound, integers exact. NaN
        never passes. `problem.outputs` holds each output's starting contents (the poison, zero or an
        in/out buffer's drawn values): a wrong element still bit for bit its starting value was
        never written, and a failed verdict says how many such elements there are."""
        expected, rules = self.expected(problem)
        verdicts = []
        for b in self.outputs:
            ref, out = expected[b.name], np.asarray(got[b.name]).reshape(b.shape(problem.size))
            start = np.asarray(problem.outputs[b.name]).reshape(out.shape)
            bound = rules[b.name][1] if b.is_float else 0.0
            worst, max_err, wrong, unwritten = _worst_error(out, ref, rules[b.name][0] if b.is_float else None,
                                                            start, bound, b.may_be_nan)
            passed = max_err <= bound
            index = ", ".join(str(int(i)) for i in np.unravel_index(worst, out.shape))
            detail = ""
            if not passed:
                detail = (f"{b.name}[{index}] = {out.flat[worst].item()!r}, "
                          f"expected {ref.flat[worst].item()!r} (error {max_err:.3g} > {bound:.3g})")
                if unwritten:
                    what = "the poison" if b.starts_as == "poison" and b.role == "output" else "its starting value"
                    detail += (f"; {unwritten} of the {wrong} wrong elements were never written (still {what})")
            verdicts.append(Verdict(b.name, passed, max_err, bound, detail))
        return verdicts

    def _checked_arrays(self, got, buffers, file, what, size) -> dict[str, np.ndarray]:
        path = self.path / file
        if not isinstance(got, dict):
            raise WorkloadFolderError(path, what, f"returned {type(got).__name__}, not a dict of buffer name -> array")
        result = {}
        for b in buffers:
            if b.name not in got:
                raise WorkloadFolderError(path, what, f"returned no {b.name!r} (expected {', '.join(x.name for x in buffers)})")
            array = np.asarray(got[b.name])
            want = b.shape(size)
            if array.shape != want and not (array.size == 1 and want == (1,)):
                raise WorkloadFolderError(path, f"{what}[{b.name!r}]", f"has shape {array.shape}, expected {want}")
            if file == "inputs.py":
                array = input_array(b, array, path, f"{what}[{b.name!r}]")
            else:
                reference_array(b, array, path, f"{what}[{b.name!r}]")
            result[b.name] = array.reshape(want)
        extra = set(got) - {b.name for b in buffers}
        if extra:
            raise WorkloadFolderError(path, what, f"returned {', '.join(sorted(extra))}, which workload.json does not list")
        return result


@dataclass
class Problem:
    """One case's host data: the size (m, n, k), its seed, the inputs and scalars by name, and each
    output's starting contents (NaN / -1 poison, or zero). What a Python implementation's upload()
    receives."""
    size: dict
    seed: int
    inputs: dict[str, np.ndarray]
    scalars: dict[str, Any]
    outputs: dict[str, np.ndarray]


@dataclass(frozen=True)
class Verdict:
    output: str
    passed: bool
    max_error: float
    bound: float
    detail: str


def widen(array: np.ndarray) -> np.ndarray:
    return array.astype(np.float64 if array.dtype.kind == "f" else np.int64)


# Elements compared at a time: a chunk's float64 temporaries stay in the CPU's caches. A graded lab
# checks every timed sample (lab/child/fresh_inputs.h), so the check's speed is part of a grade's.
_CHECK_CHUNK = 1 << 20


def _worst_error(out: np.ndarray, ref: np.ndarray, scale: np.ndarray | None, start: np.ndarray,
                 bound: float, may_be_nan: bool = False) -> tuple[int, float, int, int]:
    """(flat index of the largest error, that error, how many elements err above `bound`, how many
    of those still hold their starting value bit for bit). A float output's error is
    |out - ref| / scale, NaN counted as infinite (but 0 where both are NaN and the output
    `may_be_nan`); an integer output's |out - ref|. Every array has
    the output's shape (at least one axis) and is taken a few leading-axis slices at a time (a
    broadcast scale is sliced, never copied out)."""
    rows = out.shape[0]
    per_row = out.size // rows
    step = max(1, _CHECK_CHUNK // max(1, per_row))
    worst, max_err, wrong, unwritten = 0, 0.0, 0, 0
    for r in range(0, rows, step):
        o, chunk = out[r:r + step], slice(r, r + step)
        if scale is not None:
            err = o.astype(np.float64)
            err -= ref[chunk]
            np.abs(err, out=err)
            err /= scale[chunk]
            err[np.isnan(err)] = np.inf
            if may_be_nan:
                err[np.isnan(o) & np.isnan(ref[chunk])] = 0.0
        else:
            err = np.abs(o.astype(np.int64) - ref[chunk].astype(np.int64)).astype(np.float64)
        at = int(np.argmax(err))
        if r == 0 or err.flat[at] > max_err:  # the first of equal errors, as one argmax over all
            worst, max_err = r * per_row + at, float(err.flat[at])
        above = err > bound
        if count := int(np.count_nonzero(above)):
            wrong += count
            bytes_now = np.ascontiguousarray(o).view(np.uint8).reshape(o.shape + (-1,))
            bytes_then = np.ascontiguousarray(start[chunk]).view(np.uint8).reshape(o.shape + (-1,))
            unwritten += int(np.count_nonzero(above & (bytes_now == bytes_then).all(axis=-1)))
    return worst, max_err, wrong, unwritten


# --- reading a folder ------------------------------------------------------------------------------

def load(folder: str | Path) -> WorkloadFolder:
    folder = Path(folder)
    if not folder.is_dir():
        raise WorkloadFolderError(folder, "", "not a directory")
    json_path = folder / "workload.json"
    for required in ("workload.json", "kernels.cu", "reference.py"):
        if not (folder / required).is_file():
            raise WorkloadFolderError(folder / required, "", "missing (a workload folder holds workload.json, kernels.cu and reference.py)")
    spec = read_spec(json_path)

    form = spec["size_form"]
    dims = DIMS_OF_FORM[form]

    def formula(text, where):
        try:
            return Formula(text, dims)
        except ValueError as e:
            raise WorkloadFolderError(json_path, where, f"{e} (size form {form})") from None

    names = set()
    buffers = []
    for i, b in enumerate(spec["buffers"]):
        where = f"buffers[{i}]"
        if b["name"] in names or b["name"] in DIMS:
            raise WorkloadFolderError(json_path, f"{where}.name", f"{b['name']!r} is taken (names are unique and not m, n, k)")
        names.add(b["name"])
        if b["role"] != "output" and "starts_as" in b:
            raise WorkloadFolderError(json_path, f"{where}.starts_as", f"only outputs have a starting value; {b['role']} buffers start as drawn")
        if b["role"] == "output" and "draw" in b:
            raise WorkloadFolderError(json_path, f"{where}.draw", "outputs are not drawn: say what they start as (starts_as), or make it an inout buffer")
        draw = b.get("draw", {})
        if draw.get("kind") == "unit" and not b["type"].startswith("float"):
            raise WorkloadFolderError(json_path, f"{where}.draw", f"a unit draw is for float buffers; a {b['type']} would hold only its zeros (integers or range)")
        if draw.get("kind") == "range":
            if b["type"].startswith("float"):
                raise WorkloadFolderError(json_path, f"{where}.draw", "a range draw is for integer buffers (indices, bins)")
            for key in ("lo", "hi"):
                formula(draw[key], f"{where}.draw.{key}")
        if b.get("may_be_nan") and (b["role"] == "input" or not b["type"].startswith("float")):
            raise WorkloadFolderError(json_path, f"{where}.may_be_nan", f"is for float outputs and inout buffers; {b['name']} is a {b['type']} {b['role']}")
        buffers.append(Buffer(b["name"], b["type"], tuple(formula(e, f"{where}.extents[{j}]") for j, e in enumerate(b["extents"])),
                              b["role"], draw, b.get("starts_as", "poison"), bool(b.get("may_be_nan", False))))
    if not any(b.checked for b in buffers):
        raise WorkloadFolderError(json_path, "buffers", "no buffer has role output or inout: nothing to check")
    scalars = []
    for i, s in enumerate(spec.get("scalars", [])):
        if s["name"] in names or s["name"] in DIMS:
            raise WorkloadFolderError(json_path, f"scalars[{i}].name", f"{s['name']!r} is taken")
        names.add(s["name"])
        scalars.append(Scalar(s["name"], s["type"], scalar_value(s, json_path, f"scalars[{i}].value")))

    by_name = {b.name: b for b in buffers}
    scalar_by_name = {s.name: s for s in scalars}

    def kernel_arguments(names, field):
        arguments = []
        for i, a in enumerate(names):
            if a in by_name:
                b = by_name[a]
                arguments.append(KernelArgument(a, b.role, ("const " if b.role == "input" else "") + C_TYPES[b.type] + "*"))
            elif a in scalar_by_name:
                arguments.append(KernelArgument(a, "scalar", C_TYPES[scalar_by_name[a].type]))
            elif a in dims:
                arguments.append(KernelArgument(a, "size", SIZE_ARG_TYPE))
            else:
                raise WorkloadFolderError(json_path, f"{field}[{i}]", f"{a!r} is no buffer, scalar or dimension ({', '.join(dims)}) of this workload")
        if len({a.name for a in arguments}) != len(arguments):
            raise WorkloadFolderError(json_path, field, "names a parameter twice")
        return arguments

    def kernel_launch(launch, field):
        prefix = "" if field == "kernel" else field + "."
        grid = None if launch["grid"] == "grid_stride" else [formula(g, f"{prefix}launch.grid[{j}]") for j, g in enumerate(launch["grid"])]
        block = tuple(launch["block"])
        if int(np.prod(block)) > 1024:
            raise WorkloadFolderError(json_path, f"{prefix}launch.block", f"{block} is {int(np.prod(block))} threads; a block has at most 1024")
        return block, grid, launch.get("shared_bytes", 0)

    if "kernels" in spec:
        if "kernel" in spec or "launch" in spec:
            raise WorkloadFolderError(json_path, "kernel" if "kernel" in spec else "launch",
                                      "give either kernel and launch (one kernel) or kernels (a sequence), not both")
        calls = [(k["name"], k["arguments"], k["launch"], f"kernels[{i}]") for i, k in enumerate(spec["kernels"])]
    elif "kernel" in spec and "launch" in spec:
        calls = [(spec["kernel"]["name"], spec["kernel"]["arguments"], spec["launch"], "kernel")]
    else:
        raise WorkloadFolderError(json_path, "(top level)", "'kernel' and 'launch' (one kernel) or 'kernels' (a sequence) is required")
    kernels = []
    for name, names, launch, field in calls:
        arguments = kernel_arguments(names, f"{field}.arguments")
        kernels.append(FolderKernel(name, arguments, *kernel_launch(launch, field), field))
    passed = {a.name for k in kernels for a in k.arguments}
    unused = [b.name for b in buffers if b.name not in passed]
    if unused:
        raise WorkloadFolderError(json_path, "kernel.arguments" if "kernel" in spec else "kernels",
                                  f"does not pass buffer {unused[0]!r}")

    cu_path = folder / "kernels.cu"
    try:
        kernel_text = cu_path.read_text()
    except UnicodeDecodeError as e:
        raise WorkloadFolderError(cu_path, "", f"is not UTF-8 text: {e}") from None
    written: dict[str, int] = {}   # each output and in/out buffer -> the line of a kernel that takes it writable
    for kernel in kernels:
        line, params = kernel_parameters(kernel_text, kernel.name, cu_path)
        for name in check_parameters(params, kernel.arguments, f"{cu_path}:{line}", kernel.name,
                                     f"{kernel.field}.arguments", in_sequence=len(kernels) > 1):
            written.setdefault(name, line)
    for b in buffers:
        if b.checked and b.name not in written:
            raise WorkloadFolderError(cu_path, b.name, f"no kernel of the sequence takes {b.role} {b.name!r} writable (every one declares it const)")

    reference = load_user_module(folder / "reference.py", "reference")
    for fn in ("reference", "tolerance"):
        if not callable(getattr(reference, fn, None)):
            if fn == "tolerance" and all(not b.is_float for b in buffers if b.checked):
                continue
            raise WorkloadFolderError(folder / "reference.py", f"{fn}()", "not defined (docs/your-own-workload.md: reference(inputs, scalars, size) and tolerance(inputs, scalars, size))")
    inputs = None
    inputs_takes_draw = False
    if (folder / "inputs.py").is_file():
        inputs = load_user_module(folder / "inputs.py", "inputs")
        if not callable(getattr(inputs, "inputs", None)):
            raise WorkloadFolderError(folder / "inputs.py", "inputs()", "not defined (inputs(size, rng[, draw]) -> dict of input name -> array)")
        inputs_takes_draw = positional_count(inputs.inputs, folder / "inputs.py") == 3
    python_layers = python_layer_files(folder)

    return WorkloadFolder(
        path=folder, spec=spec, name=spec["name"], summary=spec["summary"], size_form=form,
        default_sizes=[s for s in spec["default_sizes"]], buffers=buffers, scalars=scalars, kernels=kernels,
        bytes_read=formula(spec["bytes"]["read"], "bytes.read"),
        bytes_written=formula(spec["bytes"]["written"], "bytes.written"),
        flops=formula(spec["flops"], "flops"), figure=spec.get("figure", "gbps"),
        kernel_text=kernel_text, content_hash=content_hash(folder), python_layers=python_layers,
        _reference=reference, _inputs=inputs, _inputs_takes_draw=inputs_takes_draw)


# --- the harness's side: what variants/python/workload_folder.cpp asks of a loaded folder ----------

def spec_for_harness(w: WorkloadFolder) -> dict:
    """What the C++ FolderSpec holds (workloads/folder/folder_workload.h): the buffers in order
    (each checked one, output or in/out, in the harness's output bytes: an in/out buffer's starting
    contents are its drawn values), and each kernel of the sequence: its parameters with each
    scalar's bytes as the kernel reads them, its launch shape."""
    index = {b.name: i for i, b in enumerate(w.buffers)}
    scalars = {s.name: s for s in w.scalars}
    kernels = []
    for k in w.kernels:
        arguments = []
        for a in k.arguments:
            if a.kind == "scalar":
                arguments.append({"name": a.name, "kind": "scalar", "value": scalars[a.name].typed.tobytes()})
            elif a.kind == "size":
                arguments.append({"name": a.name, "kind": "size", "dim": a.name})
            else:
                arguments.append({"name": a.name, "kind": "buffer", "buffer": index[a.name]})
        block = tuple(k.block) + (1,) * (3 - len(k.block))
        kernels.append({"name": k.name, "arguments": arguments, "block": block, "grid_stride": k.grid is None,
                        "shared_bytes": k.shared_bytes})
    return {"buffers": [(b.name, b.type, b.checked) for b in w.buffers], "kernels": kernels,
            "kernel_file": str((w.path / "kernels.cu").resolve())}


def buffer_shapes(w: WorkloadFolder, size: dict) -> list[tuple[int, ...]]:
    """Each buffer's shape at `size`, in workload.json's order."""
    size = full_size(size)
    return [b.shape(size) for b in w.buffers]


def arrays_over(buffers: list[Buffer], size: dict, views: list) -> dict[str, np.ndarray]:
    """The harness's bytes as typed arrays, no copies: views[i] holds buffers[i]'s bytes."""
    size = full_size(size)
    return {b.name: np.frombuffer(v, dtype=b.dtype).reshape(b.shape(size)) for b, v in zip(buffers, views)}


def output_arrays(w: WorkloadFolder, size: dict, views: list) -> dict[str, np.ndarray]:
    """The outputs over the harness's result bytes (what a Python implementation's download() fills)."""
    return arrays_over(w.outputs, size, views)


def case_problem(w: WorkloadFolder, size: dict, seed: int, views: list) -> Problem:
    """A Problem over the harness's bytes (what a Python implementation's upload() receives and
    the check reads): views[i] holds buffer i's bytes, the outputs' their starting contents."""
    arrays = arrays_over(w.buffers, size, views)
    return Problem(full_size(size), seed, {b.name: arrays[b.name] for b in w.inputs},
                   {s.name: s.typed for s in w.scalars}, {b.name: arrays[b.name] for b in w.outputs})


def check_reference(w: WorkloadFolder, size: dict, seed: int) -> None:
    """inputs.py (if any), reference.py and its tolerance rule run once on a problem drawn at
    `size`, before a run measures anything: WorkloadFolderError (one line naming the file) when
    one raises or returns the wrong shape, when an index drawn by a range is outside it, ..."""
    problem = w.draw_problem(size, seed)
    w.reference(problem)
    w.tolerances(problem)


def main(argv=None) -> int:
    """python3 workload_folder.py DIR...: checks each folder (its schema, kernels.cu's signatures,
    NVRTC, the Python files importable) and prints what it is, or one line and exit 2.
    `layerbench list --workload-dir DIR` checks more: the sizes (through the harness's one size
    parser), every formula and grid at each of them, and reference.py, tolerance and inputs.py
    called at the smallest."""
    import sys
    args = sys.argv[1:] if argv is None else argv
    if not args:
        print("usage: workload_folder.py DIR...", file=sys.stderr)
        return 2
    for folder in args:
        try:
            w = load(folder)
            nvrtc_check(w)
        except WorkloadFolderError as e:
            print(f"error: {e}", file=sys.stderr)
            return 2
        layers = ", ".join(w.python_layers) or "none"
        print(f"{w.name}  {w.summary}  [{w.size_form}; sizes {' '.join(w.default_sizes)}; kernels {w.kernel_names}; "
              f"Python implementations: {layers}; sha256 {w.content_hash[:12]}]")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())

