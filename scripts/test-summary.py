#!/usr/bin/env python3
"""The end of scripts/test.sh: a short summary of a ctest run from its JUnit file
(`ctest --output-junit FILE`): how many tests passed, failed and were skipped, the skipped ones
grouped by reason, and what the pytest tests inside skipped. At most about ten lines; the last is
'tests: N passed, N failed, N skipped'.

Where the reasons come from: a GoogleTest GTEST_SKIP() prints 'file:line: Skipped' and its message
on the next line; pytest with -rs prints 'SKIPPED [n] file:line: reason'; a test that skips through
SKIP_RETURN_CODE gives no message (its last line of output is taken, if any). Reasons that say the
same thing in other words (no CUDA driver, no CUDA device, libcuda.so.1 missing, ...) are grouped
under one name ('need a GPU'); the commonest wording of each group is shown beside it.

Usage: test-summary.py JUNIT.xml [--log PATH]   (the log is only named in the first line)
"""
from __future__ import annotations

import argparse
import collections
import re
import sys
import xml.etree.ElementTree as ET

# (pattern, group): the first pattern found in a reason names its group. Order matters: the "no GPU
# wanted" tests say "GPU" too.
GROUPS = [
    (r"this machine has (a GPU|an NVIDIA driver)|a GPU is (present|usable)", "need a machine without a GPU"),
    (r"compute-sanitizer", "need compute-sanitizer"),
    (r"\bncu\b", "need ncu (Nsight Compute)"),
    (r"performance counters", "need GPU performance counters"),
    (r"no CUDA driver|libcuda\.so|no CUDA device|CUDA-capable|no (usable )?GPU|needs? an? (NVIDIA |CUDA )?(GPU|device)"
     r"|driver older than the runtime|cudaErrorNoDevice|CUDA_ERROR_NO_DEVICE", "need a GPU"),
    (r"chromium", "need Chromium"),
    (r"mknod", "need mknod (device nodes)"),
    (r"Python layers unavailable", "need the Python layers"),
    (r"AddressSanitizer", "too large under AddressSanitizer"),
    (r"LB_PYTHON_MODULE_DIR is not set", "run by cython.pytest instead"),
]
NOT_INSTALLED = re.compile(r"([\w.\-]+) is not installed")
MAX_GROUPS = 4        # skipped groups shown one a line; the rest are counted on one more
MAX_FAILED_NAMES = 4


def group_of(reason: str) -> str:
    if not reason:
        return "no reason given"
    for pattern, group in GROUPS:
        if re.search(pattern, reason, re.I):
            return group
    m = NOT_INSTALLED.search(reason)
    if m:
        return f"need {m.group(1)}"
    reason = reason.strip().rstrip(".")
    return reason if len(reason) <= 60 else reason[:57] + "..."


def gtest_skip_reason(output: str) -> str | None:
    """The GTEST_SKIP() message: the line after 'file:line: Skipped'; '' when it has none."""
    m = re.search(r":\d+: Skipped\n(.*)", output)
    if not m:
        return None
    line = m.group(1).strip()
    return "" if line.startswith("[  SKIPPED ]") else line


def pytest_skips(output: str) -> list[tuple[int, str]]:
    """pytest -rs's 'SKIPPED [n] file:line: reason' lines, as (n, reason). pytest cuts a reason to
    the terminal's width ('L...'): a cut one is taken for the first whole one it begins."""
    found = []
    for m in re.finditer(r"^SKIPPED \[(\d+)\] [^:\n]+(?::\d+)?: (.*)$", output, re.M):
        found.append((int(m.group(1)), m.group(2).strip()))
    whole = [r for _, r in found if not r.endswith("...")]
    for i, (n, reason) in enumerate(found):
        if reason.endswith("..."):
            full = next((w for w in whole if w.startswith(reason[:-3])), None)
            if full:
                found[i] = (n, full)
    return found


def pytest_skipped_count(output: str) -> int:
    """The 'N skipped' of pytest's closing line ('108 passed, 2 skipped in 111.50s')."""
    counts = re.findall(r"^=*\s*\d+ \w+.*?(\d+) skipped.* in [\d.]+s", output, re.M)
    return int(counts[-1]) if counts else 0


def last_line(output: str) -> str:
    lines = [l.strip() for l in output.splitlines() if l.strip()]
    return lines[-1] if lines else ""


def summarize(junit: str, log: str | None) -> tuple[list[str], int]:
    root = ET.parse(junit).getroot()
    passed, failed, skipped, disabled = [], [], collections.Counter(), 0
    wordings: dict[str, collections.Counter] = collections.defaultdict(collections.Counter)
    inner, inner_total = collections.Counter(), 0
    for case in root.iter("testcase"):
        name = case.get("name", "?").split("  #")[0].strip()  # drop "  # GetParam() = ..."
        status = case.get("status")
        out_el = case.find("system-out")
        output = out_el.text if out_el is not None and out_el.text else ""
        if status == "run":
            passed.append(name)
        elif status == "disabled":
            disabled += 1
        elif status == "notrun":
            why = case.find("skipped")
            message = why.get("message", "") if why is not None else ""
            if not message.startswith("SKIP_"):  # not run at all (no executable, a fixture failed): ctest fails it
                failed.append(f"{name} (not run: {message})" if message else f"{name} (not run)")
                continue
            reason = gtest_skip_reason(output)
            if reason is None:
                skips = pytest_skips(output)
                reason = skips[0][1] if skips else last_line(output)
            group = group_of(reason)
            skipped[group] += 1
            wordings[group][reason] += 1
        else:
            failed.append(name)
        if status in ("run", "fail"):  # a pytest test that ran: what skipped inside it
            skips = pytest_skips(output)
            for n, reason in skips:
                inner[group_of(reason)] += n
            count = pytest_skipped_count(output)
            inner_total += max(count, sum(n for n, _ in skips))
            if count > sum(n for n, _ in skips):
                inner["reason not printed (pytest without -rs)"] += count - sum(n for n, _ in skips)
    n_skipped = sum(skipped.values())
    total = len(passed) + len(failed) + n_skipped + disabled
    lines = [f"test summary: {total} tests" + (f" (full output: {log})" if log else "")]
    lines.append(f"  passed:  {len(passed)}")
    if failed:
        shown = ", ".join(failed[:MAX_FAILED_NAMES])
        more = f", and {len(failed) - MAX_FAILED_NAMES} more" if len(failed) > MAX_FAILED_NAMES else ""
        lines.append(f"  failed:  {len(failed)}: {shown}{more}")
    else:
        lines.append("  failed:  0")
    groups = skipped.most_common()
    for i, (group, n) in enumerate(groups[:MAX_GROUPS]):
        wording, _ = wordings[group].most_common(1)[0]
        note = f" ({wording})" if wording and wording != group and group != "no reason given" else ""
        if len(note) > 70:
            note = note[:66] + "...)"
        lines.append(f"  {'skipped:' if i == 0 else '        '} {n} {group}{note}")
    if len(groups) > MAX_GROUPS:
        rest = groups[MAX_GROUPS:]
        lines.append(f"           {sum(n for _, n in rest)} for {len(rest)} other reasons (see the full output)")
    if not groups:
        lines.append("  skipped: 0")
    if disabled:
        lines.append(f"  disabled: {disabled}")
    if inner_total:
        parts = ", ".join(f"{n} {g if len(g) <= 40 else g[:37] + '...'}" for g, n in inner.most_common(3))
        if len(inner) > 3:
            parts += f", {sum(n for _, n in inner.most_common()[3:])} other"
        lines.append(f"  inside the pytest tests, {inner_total} cases skipped: {parts}")
    lines.append(f"tests: {len(passed)} passed, {len(failed)} failed, {n_skipped} skipped")
    return lines, len(failed)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("junit")
    parser.add_argument("--log")
    args = parser.parse_args()
    try:
        lines, _ = summarize(args.junit, args.log)
    except (OSError, ET.ParseError) as e:
        print(f"test summary: cannot read {args.junit}: {e}", file=sys.stderr)
        return 1
    print("\n".join(lines))
    return 0


if __name__ == "__main__":
    sys.exit(main())
