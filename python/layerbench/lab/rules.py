"""The rules a Python lab's file must follow, checked on its syntax tree before it is imported
(docs/labs.md, "Python labs"); the package's docstring says why they exist. Standard library only:
the rules are checked and tested without Numba or a GPU."""
from __future__ import annotations

import ast
import operator
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Callable, NoReturn

# The modules a lab file may import (whole, or names from them).
ALLOWED_MODULES = ("numba", "numba.cuda", "math")
# Keyword arguments @cuda.jit(...) may take in a lab file. Not link= (it would compile files from
# disk into the kernel), cache= (it would read and write a cache beside the file), extensions=.
ALLOWED_JIT_KEYWORDS = ("device", "fastmath", "lineinfo", "opt", "debug", "inline", "forceinline",
                        "launch_bounds", "max_registers", "lto", "shared_memory_carveout")
# Names that reach the interpreter's machinery, forbidden anywhere in the file, even inside a kernel.
FORBIDDEN_NAMES = ("exec", "eval", "compile", "open", "__import__", "globals", "locals", "vars", "getattr",
                   "setattr", "delattr", "breakpoint")

RULE = "only @cuda.jit kernels, imports of numba and math, and constant assignments may be at the top of a lab file"


@dataclass(frozen=True)
class Dialect:
    """What one compiler's lab file may hold, for the one set of rules below: a Numba file
    (NUMBA, lab 5) or a Triton file (TRITON, lab 10). Everything else (constants only, no calls,
    no control flow, no dunders, exec/eval/open nowhere) is the same for both."""
    modules: tuple[str, ...]          # what it may import, whole or names from
    jit: str                          # the one decorator a function takes, resolved: "numba.cuda.jit"
    jit_keywords: tuple[str, ...]     # the keywords that decorator may take
    signature_string: bool            # whether it may take one string (Numba's signature)
    constexpr: str | None             # the one annotation a kernel's parameter may have (Triton's)
    rule: str                         # the rule, as a refusal states it
    what_a_function_is: str           # what a function at the top must be, as a refusal says


NUMBA = Dialect(ALLOWED_MODULES, "numba.cuda.jit", ALLOWED_JIT_KEYWORDS, True, None, RULE,
                "decorated with @cuda.jit (a kernel) or @cuda.jit(device=True) (a helper the kernels call)")
# A Triton file: @triton.jit without arguments (no autotune, no heuristics: those take Python
# callables the grade would run), parameters annotated tl.constexpr (their defaults, literals, are
# the compile-time constants the runner compiles with).
TRITON_MODULES = ("triton", "triton.language", "math")
TRITON_RULE = ("only @triton.jit functions, imports of triton, triton.language and math, and constant assignments "
               "may be at the top of a lab file")
TRITON = Dialect(TRITON_MODULES, "triton.jit", (), False, "triton.language.constexpr", TRITON_RULE,
                 "decorated with @triton.jit (the kernel, or a helper it calls)")

# What one copy of the output is followed by, on the device: a guard zone of this many floats, each
# holding the NaN bit pattern GUARD_BITS, compared bit for bit after the run (lab/runners/nvrtc/lab_kernel.cpp's
# StudentKernel::kGuardFloats and kGuardBits: the same for CUDA C++ and Python labs).
GUARD_FLOATS = 1 << 16
GUARD_BITS = 0x7F8ABCDE

# The Numba type of each kernel argument, by its name in the workloads' vocabulary (lab_spec.cpp's
# argument_vocabulary): arrays are C-contiguous float32 (matmul's 2-D, row-major), sizes int64 (what
# Numba makes of a Python int), alpha float32.
ARGUMENT_TYPES = {
    "a": "float32[::1]", "b": "float32[::1]", "c": "float32[::1]", "x": "float32[::1]", "y": "float32[::1]",
    "out": "float32[::1]", "n": "int64", "alpha": "float32",
    "A": "float32[:, ::1]", "B": "float32[:, ::1]", "C": "float32[:, ::1]", "M": "int64", "N": "int64", "K": "int64",
}


class StudentError(Exception):
    """What the student reads: the file breaks the rules, does not parse, or its kernel does not
    compile. The C++ side turns it into a StudentCompileError."""


def signature_of(arguments) -> str:
    """The kernel's Numba signature for the spec's arguments: "void(float32[::1], ..., int64)"."""
    return "void(" + ", ".join(ARGUMENT_TYPES[name] for name in arguments) + ")"


# --- the rules ------------------------------------------------------------------------------------

# Each binary operator's symbol (for messages) and, for those a top-level constant may use, its
# function, with which value_of computes a constant's value.
_OPERATORS: dict[type[ast.operator], tuple[str, Callable[[Any, Any], Any] | None]] = {
    ast.Add: ("+", operator.add), ast.Sub: ("-", operator.sub), ast.Mult: ("*", operator.mul),
    ast.Div: ("/", operator.truediv), ast.FloorDiv: ("//", operator.floordiv), ast.Mod: ("%", operator.mod),
    ast.Pow: ("**", None), ast.LShift: ("<<", None), ast.RShift: (">>", None), ast.BitOr: ("|", None),
    ast.BitAnd: ("&", None), ast.BitXor: ("^", None), ast.MatMult: ("@", None)}
# The largest magnitude value_of gives an integer. The parent computes the values of a file it does
# not trust: bounded operands keep each step cheap, where repeated squaring (B = A * A, C = B * B,
# ...) would double an integer's digits each line, and string or tuple arithmetic ("x" * 10**6,
# then * 10**6 again) would build objects of any size. No lab needs a constant beyond 2^256.
_LARGEST_CONSTANT = 2**256


def _is_number(value: object) -> bool:
    return isinstance(value, (int, float)) and _bounded(value) is not None


def _bounded(value: object) -> object:
    """`value`, or None for an integer beyond _LARGEST_CONSTANT."""
    return None if isinstance(value, int) and abs(value) > _LARGEST_CONSTANT else value


class _Rules:
    def __init__(self, filename: str, dialect: Dialect = NUMBA):
        self.filename = filename
        self.dialect = dialect
        self.modules: dict[str, str] = {}  # a name bound at the top -> the module (or module.name) it is
        self.constants: set[str] = set()
        self.constant_values: dict[str, object] = {}  # each constant's value (a Triton constexpr's default may name one)
        self.functions: dict[str, ast.FunctionDef] = {}
        self.jit_keywords: dict[str, dict] = {}  # function -> the keywords of its @cuda.jit(...)

    def fail(self, node: ast.AST | None, message: str) -> NoReturn:
        line = getattr(node, "lineno", None)
        where = f"{self.filename}:{line}" if line else self.filename
        raise StudentError(f"{where}: {message}")

    def fail_rule(self, node: ast.AST, what: str) -> NoReturn:
        self.fail(node, f"{self.dialect.rule} ({what})")

    def module_list(self) -> str:
        """"numba, numba.cuda or math": what the file may import, for a refusal."""
        modules = self.dialect.modules
        return ", ".join(modules[:-1]) + " or " + modules[-1]

    # -- what a node is, for messages
    def dotted(self, node: ast.AST) -> str | None:
        """`numba.cuda.jit` for an attribute chain on a name, with an imported name resolved to its
        module; None for anything else."""
        if isinstance(node, ast.Name):
            return self.modules.get(node.id, node.id)
        if isinstance(node, ast.Attribute):
            base = self.dotted(node.value)
            return f"{base}.{node.attr}" if base else None
        return None

    def describe(self, node: ast.AST) -> str:
        if isinstance(node, ast.Expr):
            return self.describe(node.value)
        if isinstance(node, ast.Call):
            name = self.dotted(node.func)
            return f"this is a call to {name}" if name else "this is a call"
        if isinstance(node, ast.ClassDef):
            return f"class {node.name} is a class definition"
        if isinstance(node, (ast.If, ast.For, ast.While, ast.With, ast.Try)):
            return f"this is a{'n' if isinstance(node, ast.If) else ''} {type(node).__name__.lower()} statement, which runs on the host"
        if isinstance(node, ast.AugAssign):
            target = self.dotted(node.target) or "this"
            return f"{target} {_OPERATORS.get(type(node.op), ('?', None))[0]}= ... is not a constant assignment"
        if isinstance(node, ast.Delete):
            return "this is a del statement"
        if isinstance(node, ast.Lambda):
            return "this is a lambda"
        if isinstance(node, ast.AsyncFunctionDef):
            return f"{node.name} is an async function"
        return f"this is {type(node).__name__.lower()} code, which runs on the host when the file is imported"

    # -- constants: literals, arithmetic of literals and earlier constants, tuples of those
    def is_constant(self, node: ast.AST) -> bool:
        if isinstance(node, ast.Constant):
            return isinstance(node.value, (int, float, bool, str)) or node.value is None
        if isinstance(node, ast.UnaryOp) and isinstance(node.op, (ast.USub, ast.UAdd)):
            return self.is_constant(node.operand)
        if isinstance(node, ast.BinOp) and _OPERATORS.get(type(node.op), ("", None))[1] is not None:
            return self.is_constant(node.left) and self.is_constant(node.right)
        if isinstance(node, ast.Tuple):
            return all(self.is_constant(e) for e in node.elts)
        if isinstance(node, ast.Name):
            return node.id in self.constants
        return False

    def value_of(self, node: ast.AST):
        """The value of a node is_constant accepts: None where arithmetic on it fails (1 / 0), is not
        on numbers, or leaves an integer beyond _LARGEST_CONSTANT."""
        if isinstance(node, ast.Constant):
            return node.value
        if isinstance(node, ast.Name):
            return self.constant_values.get(node.id)
        if isinstance(node, ast.Tuple):
            return tuple(self.value_of(e) for e in node.elts)
        try:
            if isinstance(node, ast.UnaryOp):
                operand = self.value_of(node.operand)
                return _bounded(-operand if isinstance(node.op, ast.USub) else +operand)
            if isinstance(node, ast.BinOp):
                left, right = self.value_of(node.left), self.value_of(node.right)
                function = _OPERATORS.get(type(node.op), ("", None))[1]
                # Numbers only: a string's or a tuple's arithmetic has no use in a kernel's constant.
                if function is None or not _is_number(left) or not _is_number(right):
                    return None
                return _bounded(function(left, right))
        except (TypeError, ZeroDivisionError, OverflowError):
            return None
        return None

    # -- the whole file
    def check_names_everywhere(self, tree: ast.AST):
        for node in ast.walk(tree):
            name = None
            if isinstance(node, ast.Name):
                name = node.id
            elif isinstance(node, ast.Attribute):
                name = node.attr
            elif isinstance(node, (ast.FunctionDef, ast.ClassDef)):
                name = node.name
            elif isinstance(node, ast.arg):
                name = node.arg
            if name and name.startswith("__") and name.endswith("__"):
                self.fail(node, f"{name} is not allowed in a lab file: it reaches Python's machinery, and the file "
                                "holds GPU kernels only")
            if isinstance(node, ast.Name) and node.id in FORBIDDEN_NAMES:
                self.fail(node, f"{node.id} is not allowed in a lab file: the file holds GPU kernels only, and none "
                                "of its host code runs in the checker")
            if isinstance(node, (ast.Global, ast.Nonlocal)):
                self.fail(node, f"{type(node).__name__.lower()} is not allowed in a lab file")
            if isinstance(node, (ast.Import, ast.ImportFrom)) and node not in self.top_level:
                self.fail(node, "imports belong at the top of the file, not inside a kernel")
            if isinstance(node, (ast.Await, ast.Yield, ast.YieldFrom, ast.AsyncFunctionDef, ast.AsyncFor,
                                 ast.AsyncWith)):
                self.fail(node, "generators and async code are not kernels")

    def check_import(self, node: ast.Import | ast.ImportFrom):
        if isinstance(node, ast.Import):
            for alias in node.names:
                if alias.name not in self.dialect.modules:
                    self.fail_rule(node, f"this imports {alias.name}; import only {self.module_list()}")
                if alias.asname:
                    self.modules[alias.asname] = alias.name
                else:
                    top = alias.name.split(".")[0]
                    self.modules[top] = top
            return
        module = node.module or ""
        if node.level or module not in self.dialect.modules:
            self.fail_rule(node, f"this imports from {'.' * node.level}{module}; import only from {self.module_list()}")
        for alias in node.names:
            if alias.name == "*":
                self.fail(node, f"`from {module} import *` is not allowed in a lab file: name what you use "
                                f"(from {module} import ...)")
            self.modules[alias.asname or alias.name] = f"{module}.{alias.name}"

    def check_assign(self, node: ast.Assign | ast.AnnAssign):
        targets: list[ast.expr]
        if isinstance(node, ast.AnnAssign):
            targets, value = [node.target], node.value
            if value is None or not (isinstance(node.annotation, ast.Name) and node.annotation.id in
                                     ("int", "float", "bool", "str")):
                self.fail_rule(node, "an annotated assignment must be NAME: int|float|bool|str = constant")
        else:
            targets, value = node.targets, node.value
        names = []  # the targets, each a plain name (any other target is refused)
        for target in targets:
            if isinstance(target, (ast.Attribute, ast.Subscript)):
                name = self.dotted(target) or ast.unparse(target)
                self.fail_rule(node, f"this assigns to {name}: a lab file may not change what other modules hold")
            if not isinstance(target, ast.Name):
                self.fail_rule(node, "only a plain name may be assigned at the top, e.g. TPB = 256")
            if target.id in self.modules or target.id in self.functions:
                self.fail(node, f"{target.id} is already imported or defined: do not assign to it")
            names.append(target.id)
        if not self.is_constant(value):
            self.fail_rule(node, f"{names[0]} is assigned something other than a constant: a number, or "
                                 "arithmetic of numbers and earlier constants")
        for name in names:
            self.constants.add(name)
            self.constant_values[name] = self.value_of(value)

    def jit_decorator(self, fn: ast.FunctionDef) -> dict:
        """The keywords of the function's one @cuda.jit (Triton: @triton.jit) decorator (empty for a
        bare one)."""
        jit = self.dialect.jit.replace("numba.", "")  # "cuda.jit", "triton.jit": as a file writes it
        if len(fn.decorator_list) != 1:
            what = "no decorator" if not fn.decorator_list else f"{len(fn.decorator_list)} decorators"
            self.fail_rule(fn, f"{fn.name} has {what}: a function here must be a GPU function, "
                               f"{self.dialect.what_a_function_is}; a plain Python function would run on the host")
        decorator = fn.decorator_list[0]
        call = decorator if isinstance(decorator, ast.Call) else None
        target = call.func if call else decorator
        if self.dotted(target) != self.dialect.jit:
            self.fail_rule(decorator, f"{fn.name} is decorated with {self.dotted(target) or 'an expression'}, "
                                      f"not {jit}")
        keywords = {}
        if call:
            if not self.dialect.signature_string and call.args:
                self.fail(decorator, f"@{jit}(...) takes no arguments in a lab file: the runner compiles the "
                                     "kernel for the lab's argument types")
            if len(call.args) > 1 or any(not (isinstance(a, ast.Constant) and isinstance(a.value, str))
                                         for a in call.args):
                self.fail(decorator, f"@{jit}'s signature for {fn.name} must be one string; the runner "
                                     "compiles the kernel for the lab's argument types anyway")
            for kw in call.keywords:
                if kw.arg not in self.dialect.jit_keywords:
                    allowed = ", ".join(self.dialect.jit_keywords) or "none"
                    self.fail(decorator, f"@{jit}({kw.arg or '**'}=...) is not allowed in a lab file (allowed: "
                                         f"{allowed})")
                try:
                    keywords[kw.arg] = ast.literal_eval(kw.value)
                except (ValueError, TypeError, SyntaxError):
                    self.fail(decorator, f"@{jit}({kw.arg}=...) must be a literal: a number, True/False, a "
                                         "string or a tuple of those")
        return keywords

    def is_constexpr(self, annotation: ast.AST | None) -> bool:
        """Whether a parameter's annotation is the dialect's one allowed annotation (tl.constexpr)."""
        return annotation is not None and self.dialect.constexpr is not None and \
            self.dotted(annotation) == self.dialect.constexpr

    def check_function(self, fn: ast.FunctionDef):
        if fn.name in self.modules or fn.name in self.constants:
            self.fail(fn, f"{fn.name} is already imported or assigned: give the function another name")
        keywords = self.jit_decorator(fn)
        args = fn.args
        for a in args.posonlyargs + args.args + args.kwonlyargs + [args.vararg, args.kwarg]:
            if a is not None and a.annotation is not None and not self.is_constexpr(a.annotation):
                allowed = " (but tl.constexpr)" if self.dialect.constexpr else ""
                self.fail(a, f"{fn.name}: parameter annotations{allowed} are evaluated on the host; leave them out")
        if fn.returns is not None:
            self.fail(fn, f"{fn.name}: a return annotation is evaluated on the host; leave it out")
        for default in args.defaults + [d for d in args.kw_defaults if d is not None]:
            if not self.is_constant(default):
                self.fail(default, f"{fn.name}: a parameter's default must be a constant")
        self.functions[fn.name] = fn
        self.jit_keywords[fn.name] = keywords

    def check(self, source: str) -> "_Rules":
        # An expression nested thousands deep (1+1+...+1, ------1) exhausts the parser's or these
        # recursive checks' depth: the file's fault, said as such, not the grader's crash.
        try:
            return self.check_tree(source)
        except (RecursionError, MemoryError):
            raise StudentError(f"{self.filename}: cannot be checked: an expression is nested too deeply "
                               "(split it over several constants)") from None

    def check_tree(self, source: str) -> "_Rules":
        try:
            tree = ast.parse(source, filename=self.filename)
        except SyntaxError as e:
            where = f"{self.filename}:{e.lineno}" if e.lineno else self.filename
            raise StudentError(f"{where}: SyntaxError: {e.msg}") from None
        except ValueError as e:  # null bytes
            raise StudentError(f"{self.filename}: cannot be parsed: {e}") from None
        self.top_level = set(tree.body)
        self.check_names_everywhere(tree)
        for i, node in enumerate(tree.body):
            if isinstance(node, (ast.Import, ast.ImportFrom)):
                self.check_import(node)
            elif isinstance(node, (ast.Assign, ast.AnnAssign)):
                self.check_assign(node)
            elif isinstance(node, ast.FunctionDef):
                self.check_function(node)
            elif isinstance(node, ast.Expr) and isinstance(node.value, ast.Constant) and isinstance(node.value.value, str):
                pass  # a docstring, or a string on its own
            elif isinstance(node, ast.Pass):
                pass
            else:
                self.fail_rule(node, self.describe(node))
        return self


def check_source(source: str, filename: str, kernel: str, argument_count: int) -> dict:
    """Raises StudentError (naming filename and line) unless `source` follows the rules and defines
    `kernel` as a @cuda.jit kernel (not device=True) taking `argument_count` positional parameters.
    Returns the keywords of the kernel's @cuda.jit(...) decorator."""
    rules = _Rules(filename).check(source)
    fn = rules.functions.get(kernel)
    if fn is None:
        raise StudentError(f"{filename}: no kernel named {kernel} (expected @cuda.jit def {kernel}(...) at the "
                           "top of the file)")
    keywords = rules.jit_keywords[kernel]
    if keywords.get("device"):
        rules.fail(fn, f"{kernel} is a device function (device=True): the kernel the runner launches must be "
                       "decorated with plain @cuda.jit")
    params = fn.args.posonlyargs + fn.args.args
    if fn.args.vararg or fn.args.kwarg or fn.args.kwonlyargs or len(params) != argument_count:
        rules.fail(fn, f"{kernel} must take exactly {argument_count} parameters, in the lab's order (it takes "
                       f"{', '.join(a.arg for a in params) or 'none'}{', *...' if fn.args.vararg or fn.args.kwonlyargs else ''}"
                       f"{', **...' if fn.args.kwarg else ''})")
    return keywords


def read_source(path: str) -> str:
    try:
        return Path(path).read_text(encoding="utf-8")
    except UnicodeDecodeError as e:
        raise StudentError(f"{path}: not UTF-8 text ({e.reason} at byte {e.start})") from None


def check_file(path: str, kernel: str, argument_count: int) -> dict:
    """check_source on a file, named in messages as `path` is given."""
    return check_source(read_source(path), str(path), kernel, argument_count)


# --- a Triton lab's file (lab 10) -------------------------------------------------------------------

def check_triton_source(source: str, filename: str, kernel: str, argument_count: int) -> dict:
    """Raises StudentError (naming filename and line) unless `source` follows the rules for a Triton
    file (TRITON) and defines `kernel` as a @triton.jit function whose first `argument_count`
    parameters are the lab's (in its order, not constexpr) and whose others are each
    `NAME: tl.constexpr = LITERAL`. Returns {"parameters": [the lab's, as the kernel names them],
    "constexprs": {NAME: value}}: what the runner compiles the kernel with (the defaults are the
    compile-time constants: the runner, not the student's host code, launches it)."""
    rules = _Rules(filename, TRITON).check(source)
    fn = rules.functions.get(kernel)
    if fn is None:
        raise StudentError(f"{filename}: no kernel named {kernel} (expected @triton.jit def {kernel}(...) at the "
                           "top of the file)")
    args = fn.args
    params = args.posonlyargs + args.args
    if args.vararg or args.kwarg or args.kwonlyargs:
        rules.fail(fn, f"{kernel} takes *args, **kwargs or keyword-only parameters: give it the lab's "
                       f"{argument_count} parameters, then its tl.constexpr ones")
    lab = [a for a in params if not rules.is_constexpr(a.annotation)]
    if len(lab) != argument_count or params[:argument_count] != lab:
        rules.fail(fn, f"{kernel} must take exactly {argument_count} parameters, in the lab's order, before its "
                       f"tl.constexpr ones (it takes {', '.join(a.arg for a in params) or 'none'})")
    defaults = dict(zip([a.arg for a in params][len(params) - len(args.defaults):], args.defaults))
    constexprs = {}
    for a in params[argument_count:]:
        if a.arg not in defaults:
            rules.fail(a, f"{kernel}: the tl.constexpr parameter {a.arg} has no default: give it one "
                          f"({a.arg}: tl.constexpr = 1024); the runner compiles the kernel with it")
        value = rules.value_of(defaults[a.arg])
        if not isinstance(value, (bool, int, float)):
            rules.fail(a, f"{kernel}: the default of {a.arg} must be a number or True/False (a literal, or "
                          "arithmetic of literals and constants): it is the compile-time constant")
        constexprs[a.arg] = value
    return {"parameters": [a.arg for a in lab], "constexprs": constexprs}


def check_triton_file(path: str, kernel: str, argument_count: int) -> dict:
    """check_triton_source on a file, named in messages as `path` is given."""
    return check_triton_source(read_source(path), str(path), kernel, argument_count)
