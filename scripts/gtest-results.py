#!/usr/bin/env python3
"""The gtest tests' results where each gtest executable ran as one ctest test
(-DLAYERBENCH_GTEST_PER_EXECUTABLE=ON; scripts/test-sanitized.sh without a GPU).

usage: scripts/gtest-results.py RESULTS_DIR CTEST_LOG

Reads each executable's gtest XML (RESULTS_DIR/<executable>.xml) and prints how many of its tests
passed, failed and skipped, then each failed test by name. An executable that failed without writing
its XML (a sanitizer stops the program at its first report) is named with the last test it began,
from its output in ctest's log (ctest --output-on-failure).
"""
import glob
import os
import re
import sys
import xml.etree.ElementTree as ET


def main(results: str, log: str) -> int:
    counts = {"passed": 0, "failed": 0, "skipped": 0}
    failed = []
    for path in sorted(glob.glob(os.path.join(results, "*.xml"))):
        executable = os.path.basename(path)[: -len(".xml")]
        for case in ET.parse(path).getroot().iter("testcase"):
            name = f"{case.get('classname')}.{case.get('name')}"
            if case.find("failure") is not None:
                counts["failed"] += 1
                failed.append(f"{executable}: {name}")
            elif case.get("result") == "skipped" or case.find("skipped") is not None:
                counts["skipped"] += 1
            elif case.get("status") == "run":
                counts["passed"] += 1
    print(f"gtest tests: {counts['passed']} passed, {counts['failed']} failed, "
          f"{counts['skipped']} skipped (no GPU, or a tool missing)")
    for line in failed:
        print(f"  failed: {line}")
    # ctest's line for a failed executable, then (--output-on-failure) its output.
    current, begun = None, {}
    with open(log, errors="replace") as text:
        for line in text:
            result = re.match(r"\s*\d+/\d+ Test\s+#\d+: (\S+) .*\*\*\*", line)
            if result:
                current = result.group(1)
                continue
            if re.match(r"\s*\d+/\d+ Test\s+#\d+: ", line):
                current = None
            run = re.match(r"\[ RUN      \] (\S+)", line)
            if current and run:
                begun[current] = run.group(1)
    for executable, test in begun.items():
        if not os.path.exists(os.path.join(results, executable + ".xml")):
            print(f"  failed: {executable} ended without its results, in {test}")
    return 0


if __name__ == "__main__":
    if len(sys.argv) != 3:
        print(next(line for line in __doc__.splitlines() if line.startswith("usage:")), file=sys.stderr)
        sys.exit(2)
    sys.exit(main(sys.argv[1], sys.argv[2]))
