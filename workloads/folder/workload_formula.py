"""Formulas in m, n and k for a workload folder (workload_folder.py): whole numbers, + - * / and
parentheses, parsed with the standard library's `ast` over a whitelist of nodes (no eval()), and the
one error type of a folder's checks."""
from __future__ import annotations

import ast
from fractions import Fraction

DIMS = ("m", "n", "k")


class WorkloadFolderError(Exception):
    """Bad input in a workload folder: its text is one line naming the file and the field."""

    def __init__(self, file: Path | str, where: str, message: str):
        self.file, self.where = str(file), where
        text = " ".join(str(message).split())
        super().__init__(f"{file}: {where}: {text}" if where else f"{file}: {text}")


# --- formulas in m, n, k ---------------------------------------------------------------------------

_ALLOWED_OPS = {ast.Add: lambda a, b: a + b, ast.Sub: lambda a, b: a - b,
                ast.Mult: lambda a, b: a * b, ast.Div: lambda a, b: a / b}


class Formula:
    """A formula over m, n, k: whole numbers, + - * / and parentheses, evaluated exactly (as
    fractions). Parsed once; anything else (names, calls, powers, floats) is refused."""

    def __init__(self, text: str, dims: tuple[str, ...] = DIMS):
        self.text = text
        try:
            tree = ast.parse(text.strip(), mode="eval")
        except SyntaxError as e:
            raise ValueError(f"formula {text!r} does not parse: {e.msg}") from None
        self._body = tree.body
        self.names: set[str] = set()
        self._check(self._body, dims)

    def _check(self, node, dims):
        if isinstance(node, ast.BinOp) and type(node.op) in _ALLOWED_OPS:
            self._check(node.left, dims)
            self._check(node.right, dims)
        elif isinstance(node, ast.UnaryOp) and isinstance(node.op, (ast.USub, ast.UAdd)):
            self._check(node.operand, dims)
        elif isinstance(node, ast.Constant) and type(node.value) is int:
            pass
        elif isinstance(node, ast.Name):
            if node.id not in dims:
                raise ValueError(f"formula {self.text!r} names {node.id!r}: only {', '.join(dims)} here")
            self.names.add(node.id)
        else:
            raise ValueError(f"formula {self.text!r}: only whole numbers, {', '.join(dims)}, + - * / and parentheses")

    def exact(self, m: int = 1, n: int = 1, k: int = 1) -> Fraction:
        values = {"m": m, "n": n, "k": k}

        def walk(node) -> Fraction:
            if isinstance(node, ast.BinOp):
                left, right = walk(node.left), walk(node.right)
                if isinstance(node.op, ast.Div) and right == 0:
                    raise ZeroDivisionError(f"formula {self.text!r} divides by zero at m={m}, n={n}, k={k}")
                return _ALLOWED_OPS[type(node.op)](left, right)
            if isinstance(node, ast.UnaryOp):
                return -walk(node.operand) if isinstance(node.op, ast.USub) else walk(node.operand)
            if isinstance(node, ast.Constant):
                return Fraction(node.value)
            return Fraction(values[node.id])

        return walk(self._body)

    def __call__(self, m: int = 1, n: int = 1, k: int = 1) -> float:
        return float(self.exact(m, n, k))

    def whole(self, m: int = 1, n: int = 1, k: int = 1) -> int:
        """The value rounded up to a whole number (a grid's blocks, a buffer's extent)."""
        value = self.exact(m, n, k)
        return -((-value.numerator) // value.denominator)
