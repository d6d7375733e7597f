#!/usr/bin/env python3
"""The device-side mutation-kill suite: known-wrong kernel texts must fail `layerbench run`.

tests/mutations/<name>.json lists mutations of workloads/<name>/kernels.cu as textual edits
({"name", "class", "why", "find", "replace"}, optionally "sizes" and "sizes_why"), applied to the
text as it is now: `find` must occur exactly once, else the suite stops and names the mutation (so
it follows the kernels as they change). Each mutated text goes through the driver layer, compiled
at run time by NVRTC, with nothing rebuilt:

    layerbench run --check -l driver -w W --kernel-text NAME=FILE -s SIZES -o out.json --no-kernel-cache

at every default and edge size of W (the file's "sizes"; a mutation that lists its own runs at
those, the sizes where it makes the kernel wrong, and says why the others are left out). A mutation
is killed when the run exits 1 and every case failed its verification ("verification failed: ...");
a case that passes is a survivor, and one that fails any other way (a compile error, a crash) is an
error, not a kill. A control run of the unmutated text through the same --kernel-text path must
pass every case and exit 0. The table (markdown) goes to stdout.

A survivor fails the suite, except at a size the mutation marks "known_survivors" ({size: why}):
a loss below what the workload's check can see there, by its documented bound. It is counted as not
killed in the kill rate and shown as such; if it is ever killed there, the suite fails so that the
mark is removed (as tests/bad_inputs treats its known problems).

    tests/mutations/mutation-kill.py                          # every mutation: the kill table; exit 1 on a survivor
    tests/mutations/mutation-kill.py --only reduce            # one kernel text's mutations (repeatable)
    tests/mutations/mutation-kill.py --only reduce/shifted_read
    tests/mutations/mutation-kill.py --json kills.json        # also the verdicts, case by case, as JSON
    tests/mutations/mutation-kill.py --list                   # the mutations; checks that each applies (no GPU)
    tests/mutations/mutation-kill.py --write-texts DIR        # the mutated texts and DIR/manifest.json (no GPU)

The binary: --exe, else $LB_EXE, else <repo>/build/layerbench. Exit status: 0 every mutation killed
at every size and every control passed; 1 a survivor, an error or a failed control; 2 bad usage, a
mutation that no longer applies (its `find` is not in the text exactly once), or no driver layer
here (no GPU).
tests/test_mutation_kill.cpp runs this script (the ctest MutationKill.* and MutationKillOnTheGpu.*/<text>) and asserts on --json.
"""
from __future__ import annotations

import argparse
import json
import os
import re
import subprocess
import sys
import tempfile
import time
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field
from pathlib import Path

REPO = Path(__file__).resolve().parents[2]
MUTATIONS = REPO / "tests" / "mutations"
SEED = 20240601  # fixed, so a table can be reproduced; --seed picks another
RUN_TIMEOUT_S = 600


class SuiteError(Exception):
    """The mutation data is broken (a bad file, a `find` that no longer matches): exit 2."""


@dataclass
class Mutation:
    name: str
    klass: str
    why: str
    find: str
    replace: str
    sizes: list[str]
    sizes_why: str = ""
    known_survivors: dict[str, str] = field(default_factory=dict)  # size -> why it cannot be killed there


@dataclass
class Suite:
    name: str  # the kernel text: workloads/<name>/kernels.cu, replaced with --kernel-text <name>=FILE
    workloads: list[str]  # what -w runs with that text (launch: launch_async and launch_sync)
    sizes: list[str]
    text: str
    mutations: list[Mutation]

    @property
    def kernels(self) -> str:
        return f"workloads/{self.name}/kernels.cu"


def load_suites() -> list[Suite]:
    suites = []
    files = sorted(MUTATIONS.glob("*.json"))
    if not files:
        raise SuiteError(f"no mutation files in {MUTATIONS}")
    for f in files:
        where = f.relative_to(REPO)
        try:
            data = json.loads(f.read_text())
        except (OSError, ValueError) as e:
            raise SuiteError(f"{where}: {e}") from e
        kernels = REPO / "workloads" / f.stem / "kernels.cu"
        if not kernels.is_file():
            raise SuiteError(f"{where}: no {kernels.relative_to(REPO)} to mutate")
        try:
            sizes = [str(s) for s in data["sizes"]]
            workloads = [str(w) for w in data["workloads"]]
            mutations = []
            for m in data["mutations"]:
                mutations.append(Mutation(m["name"], m["class"], m["why"], m["find"], m["replace"],
                                          [str(s) for s in m.get("sizes", sizes)], m.get("sizes_why", ""),
                                          {str(k): str(v) for k, v in m.get("known_survivors", {}).items()}))
        except (KeyError, TypeError) as e:
            raise SuiteError(f"{where}: not a mutation file (missing or wrong {e})") from e
        names = [m.name for m in mutations]
        for m in mutations:
            if names.count(m.name) > 1:
                raise SuiteError(f"{where}: mutation {m.name} is listed twice")
            if not re.fullmatch(r"[A-Za-z0-9_.-]+", m.name):
                raise SuiteError(f"{where}: mutation name {m.name!r} is not a plain word")
            if not m.sizes or any(s not in sizes for s in m.sizes):
                raise SuiteError(f"{where}: mutation {m.name}'s sizes {m.sizes} are not a subset of {sizes}")
            if m.sizes != sizes and not m.sizes_why:
                raise SuiteError(f"{where}: mutation {m.name} leaves sizes out without saying why (sizes_why)")
            if any(s not in m.sizes or not why for s, why in m.known_survivors.items()):
                raise SuiteError(f"{where}: mutation {m.name}'s known_survivors must be sizes it runs at, "
                                 f"each with why")
        suites.append(Suite(f.stem, workloads, sizes, kernels.read_text(), mutations))
    return suites


def mutated_text(suite: Suite, m: Mutation) -> str:
    count = suite.text.count(m.find)
    if count != 1:
        raise SuiteError(f"mutation {suite.name}/{m.name} no longer applies: its find text occurs {count} times in "
                         f"{suite.kernels} (it must occur exactly once): update tests/mutations/{suite.name}.json. "
                         f"find = {m.find!r}")
    text = suite.text.replace(m.find, m.replace)
    if text == suite.text:
        raise SuiteError(f"mutation {suite.name}/{m.name} changes nothing (replace == find)")
    return text


def select(suites: list[Suite], only: list[str]) -> list[tuple[Suite, list[Mutation]]]:
    if not only:
        return [(s, s.mutations) for s in suites]
    picked = []
    for s in suites:
        ms = [m for m in s.mutations if s.name in only or f"{s.name}/{m.name}" in only]
        if ms:
            picked.append((s, ms))
    known = {s.name for s in suites} | {f"{s.name}/{m.name}" for s in suites for m in s.mutations}
    unknown = [o for o in only if o not in known]
    if unknown:
        raise SuiteError(f"--only {unknown[0]}: no such kernel text or mutation (e.g. reduce, reduce/shifted_read)")
    return picked


# --- running ------------------------------------------------------------------------------------

def size_label(case: dict) -> str:
    if "m" in case and "k" in case:
        return f"{case['m']}x{case['n']}x{case['k']}"
    if "m" in case:  # a matrix workload (transpose): the record has m and n, no k
        return f"{case['m']}x{case['n']}"
    return str(case["n"])


@dataclass
class RunOutcome:
    exit: int | None  # None: timed out
    cases: list[dict] = field(default_factory=list)  # {"workload", "size", "verdict", "message"}
    problems: list[str] = field(default_factory=list)  # why the run itself cannot be judged
    seconds: float = 0.0


def judge_case(case: dict) -> str:
    """killed: failed its verification; survived: passed; error: anything else."""
    status, message = case.get("status"), case.get("message", "")
    if status == "failed" and message.startswith("verification failed"):
        return "killed"
    if status == "ok":
        return "survived"
    return "error"


def run_text(exe: str, suite: Suite, text: str, sizes: list[str], work: Path, seed: int) -> RunOutcome:
    """One `layerbench run --check` of `text` in place of the suite's kernel text."""
    work.mkdir(parents=True, exist_ok=True)
    kernel_file = work / f"{suite.name}.cu"
    kernel_file.write_text(text)
    out = work / "out.json"
    command = [exe, "run", "--check", "-l", "driver", "-w", ",".join(suite.workloads), "--kernel-text",
               f"{suite.name}={kernel_file}", "-s", ",".join(sizes), "-o", str(out), "--no-kernel-cache",
               "--seed", str(seed)]
    (work / "command.txt").write_text(" ".join(command) + "\n")
    started = time.monotonic()
    try:
        done = subprocess.run(command, capture_output=True, text=True, errors="replace", timeout=RUN_TIMEOUT_S)
    except subprocess.TimeoutExpired:
        return RunOutcome(None, problems=[f"timed out after {RUN_TIMEOUT_S} s"], seconds=time.monotonic() - started)
    outcome = RunOutcome(done.returncode, seconds=time.monotonic() - started)
    (work / "stdout.txt").write_text(done.stdout)
    (work / "stderr.txt").write_text(done.stderr)
    try:
        results = json.loads(out.read_text())
    except (OSError, ValueError) as e:
        last = (done.stderr.strip().splitlines() or ["(no stderr)"])[-1]
        outcome.problems.append(f"exit {done.returncode}, no results ({e}); stderr: {last}")
        return outcome
    # The run must have compiled this very file in place of the built-in text (not a stale cache,
    # not the embedded text): the driver's record says so.
    kernels = results.get("context", {}).get("layers", {}).get("driver", {}).get("kernels", {})
    entry = kernels.get(suite.name, {})
    if not (entry.get("replaced_kernel_text") is True and entry.get("source") == str(kernel_file)
            and entry.get("from_cache") is False):
        outcome.problems.append(f"the driver's record does not show {kernel_file} compiled in place of "
                                f"{suite.kernels}: {json.dumps(entry)[:300]}")
    for b in results.get("benchmarks", []):
        if b.get("run_type") != "iteration" or "workload" not in b:
            continue
        outcome.cases.append({"workload": b["workload"], "size": size_label(b), "status": b.get("status"),
                              "verdict": judge_case(b), "message": b.get("message", "")})
    expected = {(w, s) for w in suite.workloads for s in sizes}
    got = {(c["workload"], c["size"]) for c in outcome.cases}
    for w, s in sorted(expected - got):
        outcome.problems.append(f"no case {w} at {s} in the results")
    return outcome


@dataclass
class Job:
    suite: Suite
    mutation: Mutation | None  # None: the control (the unmutated text)
    text: str

    @property
    def label(self) -> str:
        return f"{self.suite.name}/{self.mutation.name if self.mutation else '(control)'}"

    @property
    def sizes(self) -> list[str]:
        return self.mutation.sizes if self.mutation else self.suite.sizes


def job_record(job: Job, o: RunOutcome) -> dict:
    control = job.mutation is None
    want_exit, want = (0, "ok") if control else (1, "killed")
    problems = list(o.problems)
    if o.exit is not None and o.exit != want_exit:
        problems.append(f"layerbench exited {o.exit}, expected {want_exit}")
    known = {} if control else job.mutation.known_survivors
    by_size = {}
    for s in job.sizes:
        cases = [c for c in o.cases if c["size"] == s]
        verdicts = {c["verdict"] if not control else ("ok" if c["status"] == "ok" else "failed") for c in cases}
        by_size[s] = (verdicts.pop() if len(verdicts) == 1 else "mixed") if cases else "missing"
        if s in known:
            if by_size[s] == "survived":
                by_size[s] = "known"
            elif by_size[s] == "killed":
                problems.append(f"marked a known survivor at {s} but killed there: remove {s} from its "
                                f"known_survivors in tests/mutations/{job.suite.name}.json")
    passed = not problems and all(v in (want, "known") for v in by_size.values())
    record = {"kernel_text": job.suite.name, "workloads": job.suite.workloads, "exit": o.exit,
              "seconds": round(o.seconds, 1), "sizes": by_size, "cases": o.cases, "problems": problems,
              "passed": passed}
    if not control:
        m = job.mutation
        record.update({"name": m.name, "class": m.klass, "why": m.why, "sizes_why": m.sizes_why,
                       "known_survivors": m.known_survivors,
                       "killed_everywhere": passed and all(v == "killed" for v in by_size.values())})
    return record


def run_jobs(jobs: list[Job], exe: str, workdir: Path, seed: int, parallel: int) -> list[dict]:
    def one(index_job):
        index, job = index_job
        work = workdir / job.suite.name / (job.mutation.name if job.mutation else "control")
        o = run_text(exe, job.suite, job.text, job.sizes, work, seed)
        record = job_record(job, o)
        mark = "ok" if record["passed"] else "NOT " + ("PASSED" if job.mutation is None else "KILLED")
        print(f"[{index + 1}/{len(jobs)}] {job.label}: {mark} ({o.seconds:.1f} s)", file=sys.stderr, flush=True)
        return record
    with ThreadPoolExecutor(max_workers=parallel) as pool:
        return list(pool.map(one, enumerate(jobs)))


# --- the table ------------------------------------------------------------------------------------

def pretty_size(s: str) -> str:
    if s.isdigit():
        n = int(s)
        if n >= 1024 and n & (n - 1) == 0:
            return f"2^{n.bit_length() - 1}"
    return s


CELL = {"killed": "killed", "survived": "**SURVIVED**", "known": "survived (known)", "error": "error",
        "mixed": "mixed", "missing": "missing", "ok": "ok", "failed": "**FAILED**"}


def table(controls: list[dict], mutations: list[dict], suites: list[Suite]) -> str:
    lines = []
    for suite in suites:
        ms = [r for r in mutations if r["kernel_text"] == suite.name]
        cs = [r for r in controls if r["kernel_text"] == suite.name]
        if not ms and not cs:
            continue
        sizes = suite.sizes
        lines.append(f"### {suite.name} ({', '.join(suite.workloads)}; {suite.kernels})")
        lines.append("")
        lines.append("| mutation | class | " + " | ".join(pretty_size(s) for s in sizes) + " | killed |")
        lines.append("|---|---|" + "---|" * len(sizes) + "---|")
        for r in cs:
            cells = [CELL.get(r["sizes"].get(s, ""), "–") for s in sizes]
            lines.append(f"| (control: the unmutated text) | – | " + " | ".join(cells) +
                         f" | {'passes' if r['passed'] else '**FAILS**'} |")
        for r in ms:
            cells = [CELL.get(r["sizes"][s], r["sizes"][s]) if s in r["sizes"] else "–" for s in sizes]
            verdict = ("yes" if r["killed_everywhere"] else "no (known survivor)" if r["passed"] else "**no**")
            lines.append(f"| `{r['name']}` | {r['class']} | " + " | ".join(cells) + f" | {verdict} |")
        killed = sum(r["killed_everywhere"] for r in ms)
        lines.append("")
        lines.append(f"{suite.name}: {killed} of {len(ms)} mutations killed at every size they run at "
                     f"({100.0 * killed / len(ms):.0f}%)." if ms else f"{suite.name}: no mutation run.")
        for r in ms:
            for s, why in r["known_survivors"].items():
                lines.append(f"Known survivor: `{r['name']}` at {pretty_size(s)}: {why}")
        lines.append("")
    killed = sum(r["killed_everywhere"] for r in mutations)
    known = sum(r["passed"] and not r["killed_everywhere"] for r in mutations)
    cases = [c for r in mutations for c in r["cases"]]
    killed_cases = sum(c["verdict"] == "killed" for c in cases)
    if mutations:
        lines.append(f"**Overall: {killed} of {len(mutations)} mutations killed at every size "
                     f"({100.0 * killed / len(mutations):.0f}%)"
                     + (f", {known} more {'survives' if known == 1 else 'survive'} only where marked known" if known else "")
                     + f"; {killed_cases} of {len(cases)} mutated cases failed their verification.** "
                     f"`–`: a size where the mutation leaves the kernel right (tests/mutations/*.json says why "
                     f"for each).")
    return "\n".join(lines)


def problems_text(records: list[dict]) -> list[str]:
    out = []
    for r in records:
        label = f"{r['kernel_text']}/{r.get('name', '(control)')}"
        for p in r["problems"]:
            out.append(f"{label}: {p}")
        for c in r["cases"]:
            if "name" in r and c["size"] in r["known_survivors"] and c["verdict"] == "survived":
                continue
            bad = (c["verdict"] != "killed") if "name" in r else (c["status"] != "ok")
            if bad:
                out.append(f"{label}: {c['workload']} at {c['size']}: {c['status']}"
                           + (f" ({c['message'][:200]})" if c["message"] else ""))
    return out


# --- main -----------------------------------------------------------------------------------------

def driver_unavailable(exe: str) -> str:
    """Why the driver layer cannot run here (`layerbench list`), or "" when it can."""
    try:
        text = subprocess.run([exe, "list"], capture_output=True, text=True, timeout=120).stdout
    except (OSError, subprocess.TimeoutExpired) as e:
        return f"`{exe} list` failed: {e}"
    found = re.search(r"^  driver +unavailable .*\n +why: (.*)$", text, re.M)
    return found.group(1) if found else ""


def default_exe() -> str:
    return os.environ.get("LB_EXE") or str(REPO / "build" / "layerbench")


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(description="Known-wrong kernel texts through the driver layer: every one must "
                                            "fail `layerbench run --check` at every size (tests/mutations/).")
    p.add_argument("--exe", default=default_exe(), help="the layerbench binary (default: $LB_EXE, else build/layerbench)")
    p.add_argument("--only", action="append", default=[], metavar="TEXT[/MUTATION]",
                   help="run only this kernel text's mutations, or one mutation (repeatable)")
    p.add_argument("--jobs", "-j", type=int, default=2, help="layerbench runs at once (default 2)")
    p.add_argument("--seed", type=int, default=SEED, help=f"the runs' --seed (default {SEED})")
    p.add_argument("--json", metavar="FILE", help="write every verdict, case by case, to FILE")
    p.add_argument("--keep", metavar="DIR", help="keep each run's kernel text, command, output and results in DIR")
    p.add_argument("--no-control", action="store_true", help="skip the control runs of the unmutated texts")
    what = p.add_mutually_exclusive_group()
    what.add_argument("--list", action="store_true", help="list the mutations (checks that each applies; no GPU)")
    what.add_argument("--write-texts", metavar="DIR",
                      help="write each mutated text to DIR/<text>/<mutation>.cu, the unmutated one to "
                           "DIR/<text>/control.cu, and DIR/manifest.json; no GPU")
    args = p.parse_args(argv)
    if args.jobs < 1:
        p.error("--jobs must be at least 1")

    try:
        suites = load_suites()
        picked = select(suites, args.only)
        texts = {(s.name, m.name): mutated_text(s, m) for s, ms in picked for m in ms}
    except SuiteError as e:
        print(f"mutation-kill.py: error: {e}", file=sys.stderr)
        return 2

    if args.list:
        for s, ms in picked:
            print(f"{s.name} ({s.kernels}; -w {','.join(s.workloads)}; sizes {', '.join(s.sizes)})")
            for m in ms:
                at = "every size" if m.sizes == s.sizes else "at " + ", ".join(m.sizes)
                print(f"  {m.name:32} {m.klass} ({at})")
        print(f"{sum(len(ms) for _, ms in picked)} mutations, each applies exactly once")
        return 0

    if args.write_texts:
        root = Path(args.write_texts)
        manifest = []
        for s, ms in picked:
            (root / s.name).mkdir(parents=True, exist_ok=True)
            (root / s.name / "control.cu").write_text(s.text)
            entry = {"kernel_text": s.name, "kernels": s.kernels, "workloads": s.workloads, "sizes": s.sizes,
                     "control": str(root / s.name / "control.cu"), "mutations": []}
            for m in ms:
                f = root / s.name / f"{m.name}.cu"
                f.write_text(texts[(s.name, m.name)])
                entry["mutations"].append({"name": m.name, "class": m.klass, "sizes": m.sizes, "file": str(f)})
            manifest.append(entry)
        (root / "manifest.json").write_text(json.dumps(manifest, indent=1) + "\n")
        print(f"wrote {sum(len(ms) for _, ms in picked)} mutated texts and {len(picked)} controls to {root}")
        return 0

    if not (os.path.isfile(args.exe) and os.access(args.exe, os.X_OK)):
        print(f"mutation-kill.py: error: no layerbench binary at {args.exe} (build it, or pass --exe / set LB_EXE)",
              file=sys.stderr)
        return 2
    exe = os.path.abspath(args.exe)
    if why := driver_unavailable(exe):
        print(f"mutation-kill.py: error: the driver layer cannot run here: {why}", file=sys.stderr)
        return 2
    jobs = [] if args.no_control else [Job(s, None, s.text) for s, _ in picked]
    jobs += [Job(s, m, texts[(s.name, m.name)]) for s, ms in picked for m in ms]

    started = time.monotonic()
    with tempfile.TemporaryDirectory(prefix="lb-mutation-kill-") as tmp:
        workdir = Path(args.keep) if args.keep else Path(tmp)
        records = run_jobs(jobs, exe, workdir.resolve(), args.seed, args.jobs)
    controls = [r for r in records if "name" not in r]
    mutations = [r for r in records if "name" in r]
    print(table(controls, mutations, [s for s, _ in picked]))
    problems = problems_text(records)
    for line in problems:
        print(f"NOT KILLED OR NOT CLEAN: {line}", file=sys.stderr)
    ok = all(r["passed"] for r in records)
    if args.json:
        Path(args.json).write_text(json.dumps({
            "exe": exe, "seed": args.seed, "seconds": round(time.monotonic() - started, 1), "passed": ok,
            "killed": sum(r["killed_everywhere"] for r in mutations), "mutations_run": len(mutations),
            "controls": controls, "mutations": mutations}, indent=1) + "\n")
    known_note = " but where marked a known survivor" if any(r["known_survivors"] for r in mutations) else ""
    print(f"\n{len(mutations)} mutations and {len(controls)} controls in {time.monotonic() - started:.0f} s "
          f"(seed {args.seed}): " + (f"every mutation killed at every size{known_note}, every control passed"
                                      if ok else f"{len(problems)} problems (on stderr)"))
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
