#!/usr/bin/env python3
"""Lines of code per layer and workload, counted from the sources so the docs' tables stay true.

A line counts when it holds code: blank lines and comments (// and /* */) do not. The rows are
the workloads' folders (workloads/<workload>/), in the order the registry ranks them
(LB_REGISTER_WORKLOAD's rank in the folder's sources): no list of names here. Each layer's column
counts variants/<layer>/<workload>.*; a folder that registers several workloads (workloads/launch:
launch_async and launch_sync) has them in one file named after it in the C++ layers and one file
each, <folder>_<name>.py, in the Python layers, which count too. The "layer support" row counts the
layer's other files (its context, buffers, compiler, registration), which every workload of that
layer shares.

  tools/loc                      print the table (markdown)
  tools/loc --write FILE...      replace the table between <!-- loc:begin --> and <!-- loc:end -->
  tools/loc --check FILE...      exit 1 if a file's table differs from the sources
"""
import argparse
import pathlib
import re
import sys

ROOT = pathlib.Path(__file__).resolve().parent.parent
REGISTERED = re.compile(r"^\s*LB_REGISTER_WORKLOAD\(\s*\w+\s*,\s*(-?\d+)\s*\)", re.M)
LAYER_REGISTERED = re.compile(r"LB_REGISTER_(?:PYTHON_)?LAYER\((.*?)\);", re.S)
BEGIN, END = "<!-- loc:begin -->", "<!-- loc:end -->"


def code_lines(path: pathlib.Path) -> int:
    if path.suffix in (".py", ".pyx"):  # comments (#) and docstrings do not count
        text = re.sub(r'""".*?"""', "", path.read_text(), flags=re.S)
        return sum(1 for line in text.splitlines() if re.sub(r"#.*", "", line).strip())
    text = re.sub(r"/\*.*?\*/", "", path.read_text(), flags=re.S)
    return sum(1 for line in text.splitlines() if re.sub(r"//.*", "", line).strip())


def workloads() -> list[str]:
    """The workloads' folders (workloads/<w>/ with sources), in the registry's order: the lowest rank
    any of the folder's sources registers (LB_REGISTER_WORKLOAD(Class, rank)); a folder with none
    last, by name."""
    ranks = {}
    for folder in sorted(p for p in (ROOT / "workloads").iterdir() if p.is_dir()):
        sources = sorted(folder.glob("*.cpp")) + sorted(folder.glob("*.cu"))
        if not sources:
            continue
        found = [int(rank) for f in sources for rank in REGISTERED.findall(f.read_text())]
        ranks[folder.name] = min(found) if found else float("inf")
    return sorted(ranks, key=lambda w: (ranks[w], w))


def files_of(layer: str, w: str) -> list[pathlib.Path]:
    """The layer's files of workload folder w: <w>.*, and the Python layers' <w>_<name>.py where the
    folder registers several workloads."""
    folder = ROOT / "variants" / layer
    return sorted(folder.glob(f"{w}.*")) + sorted(folder.glob(f"{w}_*.py"))


def layers(names: list[str]) -> list[str]:
    """The layers' folders (variants/<layer>/ with a file of a workload), in the registry's order: the
    lowest rank a registration of the folder's layers gives (LB_REGISTER_LAYER(Layer{.rank = N}) in the
    folder, or LB_REGISTER_PYTHON_LAYER(PythonLayer{.rank = N, .dir = "variants/<layer>"})); a folder
    with none last, by name. No list of names here."""
    ranks: dict[str, float] = {}
    # The C++ and CUDA sources (not a __pycache__'s .cpython-*.pyc, which "*.c*" also matches).
    for source in sorted(p for p in (ROOT / "variants").rglob("*") if p.suffix in (".cpp", ".cc", ".cu")):
        for registration in LAYER_REGISTERED.findall(source.read_text()):
            rank = re.search(r"\.rank\s*=\s*(-?\d+)", registration)
            folder = re.search(r'\.dir\s*=\s*"variants/([^"/]+)"', registration)
            name = folder.group(1) if folder else source.relative_to(ROOT / "variants").parts[0]
            if rank:
                ranks[name] = min(ranks.get(name, float("inf")), int(rank.group(1)))
    found = [d.name for d in (ROOT / "variants").iterdir()
             if d.is_dir() and any(files_of(d.name, w) for w in names)]
    return sorted(found, key=lambda l: (ranks.get(l, float("inf")), l))


def table() -> str:
    names = workloads()
    folders = layers(names)
    rows = ["| workload | " + " | ".join(f"`{l}`" for l in folders) + " |",
            "|---|" + "---:|" * len(folders)]
    for w in names:
        cells = []
        for l in folders:
            files = files_of(l, w)
            cells.append(str(sum(code_lines(f) for f in files)) if files else "–")
        # A folder of several workloads is named with them: the Python layers' files say which.
        several = sorted({f.stem for l in folders for f in files_of(l, w) if f.stem != w})
        label = f"{w} ({' and '.join(several)})" if several else w
        rows.append(f"| {label} | " + " | ".join(cells) + " |")
    support = []
    for l in folders:
        files = [f for f in (ROOT / "variants" / l).rglob("*")
                 if f.is_file() and f.suffix in {".h", ".cpp", ".cu", ".py", ".pyx"} and f.stem not in names
                 and not any(f.stem.startswith(w + "_") for w in names)]
        support.append(str(sum(code_lines(f) for f in files)))
    rows.append("| layer support (shared by its workloads) | " + " | ".join(support) + " |")
    kernels = sum(code_lines(ROOT / "workloads" / w / "kernels.cu") for w in names
                  if (ROOT / "workloads" / w / "kernels.cu").is_file())
    rows.append("")
    common = sum(code_lines(f) for f in sorted((ROOT / "common").glob("*")) if f.suffix in {".h", ".cpp", ".cu"})
    rows.append(f"The kernel text the GPU layers share (workloads/*/kernels.cu) is {kernels} lines, counted in "
                f"no column; so is common/ ({common} lines: CUDA error checks, DeviceBuffer, streams and events, "
                "the GPU probe), which the harness and every layer share and the runtime layer's variants use "
                "directly (the cython layer's support row counts its .pyx and its C++ launchers, not its CMake file). "
                "The Python layers also share variants/python/lb_*.py "
                f"({sum(code_lines(f) for f in sorted((ROOT / 'variants' / 'python').glob('lb_*.py')))} lines: the kernel "
                "text's path and launch shapes, the way into the driver layer's kernel cache, what a variant is and receives (lb_variant), which CUDA libraries a layer loaded, CuPy's stream and copies) and run through the C++ adapter there. "
                "Counted by tools/loc.py: code lines only, no blanks or comments.")
    return "\n".join(rows)


def splice(text: str, new: str) -> str:
    start, end = text.index(BEGIN) + len(BEGIN), text.index(END)
    return text[:start] + "\n" + new + "\n" + text[end:]


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    group = parser.add_mutually_exclusive_group()
    group.add_argument("--write", nargs="+", metavar="FILE")
    group.add_argument("--check", nargs="+", metavar="FILE")
    args = parser.parse_args()
    current = table()
    if not args.write and not args.check:
        print(current)
        return 0
    stale = []
    for name in args.write or args.check:
        path = pathlib.Path(name)
        text = path.read_text()
        if BEGIN not in text or END not in text:
            print(f"loc.py: {name} has no {BEGIN} ... {END} markers", file=sys.stderr)
            return 2
        updated = splice(text, current)
        if args.write:
            path.write_text(updated)
        elif updated != text:
            stale.append(name)
    for name in stale:
        print(f"loc.py: the lines-of-code table in {name} is out of date; run tools/loc --write {name}",
              file=sys.stderr)
    return 1 if stale else 0


if __name__ == "__main__":
    sys.exit(main())
