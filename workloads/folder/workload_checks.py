"""What a workload folder says, evaluated at one size without drawing anything (`list` and `run`
call it at every size before any case: app/folder_checks.h): a mixin of WorkloadFolder
(workload_folder.py), split from it. Each failure is one line naming workload.json's field and the
size."""
from __future__ import annotations

import numpy as np

from workload_draws import range_bounds, size_text
from workload_formula import Formula, WorkloadFolderError

LIMIT = 2**63 - 1  # bytes: what the harness's 64-bit counts hold


def full_size(size: dict) -> dict:
    """m, n and k, each 1 where `size` does not give it."""
    return {d: int(size.get(d, 1)) for d in ("m", "n", "k")}


class SizeChecks:
    """Needs of its WorkloadFolder: path, buffers, kernels, bytes_read, bytes_written, flops."""

    def check_extents(self, size: dict) -> None:
        """Each extent at least 1, and each buffer's bytes, and all of them together, below 2^63 (what
        the harness's 64-bit counts hold), in exact integers before anything multiplies them."""
        total = 0
        for i, b in enumerate(self.buffers):
            count = 1
            for j, f in enumerate(b.extents):
                value = self._evaluate(f, f"buffers[{i}].extents[{j}]", size)
                if value < 1:
                    raise WorkloadFolderError(self.path / "workload.json", f"buffers[{i}].extents[{j}]",
                                              f"{f.text!r} is {value} at {size_text(size)}: give {b.name} extents of at least 1")
                count *= value
                if count * np.dtype(b.dtype).itemsize > LIMIT:
                    raise WorkloadFolderError(self.path / "workload.json", f"buffers[{i}].extents[{j}]",
                                              f"{f.text!r} is {value} at {size_text(size)}: {b.name} would be {count} elements of "
                                              f"{b.type}, past 2^63 - 1 bytes")
            total += count * np.dtype(b.dtype).itemsize
            if total > LIMIT:
                raise WorkloadFolderError(self.path / "workload.json", "buffers",
                                          f"the buffers together are {total} bytes at {size_text(size)}, past 2^63 - 1")

    def _evaluate(self, f: Formula, where: str, size: dict) -> int:
        """A formula's whole value at `size`; a division by zero is one line naming the field."""
        try:
            return f.whole(**size)
        except ZeroDivisionError:
            raise WorkloadFolderError(self.path / "workload.json", where, f"{f.text!r} divides by zero at {size_text(size)}") from None

    def check_size(self, size: dict, grid_limits: tuple[int, int, int]) -> None:
        """Everything workload.json says, evaluated at `size` without drawing anything: each
        buffer's extents (at least 1), each range draw's bounds (in its type), each kernel's grid
        (against `grid_limits`, x, y, z: the device's, or CUDA's documented ones), the bytes and
        flops formulas (whole, not negative). One line naming the field and the size otherwise."""
        size = full_size(size)
        self.check_extents(size)
        for i, b in enumerate(self.buffers):
            if b.draw.get("kind") == "range":
                for key in ("lo", "hi"):
                    self._evaluate(Formula(b.draw[key]), f"buffers[{i}].draw.{key}", size)
                try:
                    range_bounds(b, size)
                except ValueError as e:
                    raise WorkloadFolderError(self.path / "workload.json", f"buffers[{i}].draw", str(e).removeprefix("draw: ")) from None
        for kernel in self.kernels:
            if kernel.grid is None:
                continue
            for j, f in enumerate(kernel.grid):
                where = ("" if kernel.field == "kernel" else kernel.field + ".") + f"launch.grid[{j}]"
                blocks = self._evaluate(f, where, size)
                if blocks < 1:
                    raise WorkloadFolderError(self.path / "workload.json", where,
                                              f"{f.text!r} is {blocks} blocks at {size_text(size)}: a grid has at least 1 block "
                                              "along each axis (/ rounds up: n / 256, not n / 256 - 1)")
                if blocks > grid_limits[j]:
                    raise WorkloadFolderError(self.path / "workload.json", where,
                                              f"{f.text!r} is {blocks} blocks at {size_text(size)}, above the {'xyz'[j]} limit "
                                              f"of {grid_limits[j]} (CUDA's grids: x up to 2^31 - 1, y and z up to 65535)")
        for where, f in (("bytes.read", self.bytes_read), ("bytes.written", self.bytes_written), ("flops", self.flops)):
            try:
                value = f.exact(**size)
            except ZeroDivisionError:
                raise WorkloadFolderError(self.path / "workload.json", where, f"{f.text!r} divides by zero at {size_text(size)}") from None
            if value < 0:
                raise WorkloadFolderError(self.path / "workload.json", where, f"{f.text!r} is {value} at {size_text(size)}: negative")

    def device_bytes(self, size: dict) -> int:
        """What the buffers take on the device at `size` (every layer allocates each exactly)."""
        size = full_size(size)
        return sum(int(np.prod(b.shape(size))) * np.dtype(b.dtype).itemsize for b in self.buffers)
