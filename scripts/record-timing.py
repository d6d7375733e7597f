#!/usr/bin/env python3
"""Adds one stage's times to a timing record (build/timings.json by default), which scripts/build.sh
and scripts/test.sh write as they go: per stage the wall and CPU seconds (user + sys of what the
stage ran), and what else the stage says (steps, warnings, jobs, tests, the longest tests); and the
machine: cores, CPU model, GPUs, load average when the stage ended (other work on the machine shows
there), the commit. Committed from a machine (docs/results/timings/), it is what README.md and
docs/hardening.md quote through tools/doc-figures's `timing` query; no figure is typed by hand.

  record-timing.py FILE STAGE WALL_S CPU_S [KEY=VALUE ...]      (VALUE: a number, or text)
  record-timing.py FILE --longest JUNIT_XML [N]                 (the N longest tests, default 15)
"""
import datetime, json, os, platform, subprocess, sys
import xml.etree.ElementTree as ET


def machine():
    cpu = ""
    try:
        for line in open("/proc/cpuinfo"):
            if line.startswith("model name"):
                cpu = line.split(":", 1)[1].strip()
                break
    except OSError:
        pass
    gpus = []
    try:
        out = subprocess.run(["nvidia-smi", "--query-gpu=name", "--format=csv,noheader"], capture_output=True,
                             text=True, timeout=20)
        gpus = [l.strip() for l in out.stdout.splitlines() if l.strip()] if out.returncode == 0 else []
    except (OSError, subprocess.TimeoutExpired):
        pass
    return {"cores": os.cpu_count(), "cpu": cpu, "gpus": gpus, "host": platform.node()}


def commit():
    try:
        out = subprocess.run(["git", "rev-parse", "--short", "HEAD"], capture_output=True, text=True, timeout=10,
                             cwd=os.path.dirname(os.path.abspath(__file__)))
        return out.stdout.strip() if out.returncode == 0 else ""
    except (OSError, subprocess.TimeoutExpired):
        return ""


def value(text):
    try:
        return int(text)
    except ValueError:
        try:
            return float(text)
        except ValueError:
            return text


def main(argv):
    path = argv[1]
    try:
        with open(path) as f:
            record = json.load(f)
    except (OSError, ValueError):
        record = {}
    record.setdefault("machine", machine())
    record["commit"] = commit()
    record["date"] = datetime.datetime.now(datetime.timezone.utc).strftime("%Y-%m-%d %H:%M UTC")
    stages = record.setdefault("stages", {})
    if argv[2] == "--longest":
        cases = []
        for case in ET.parse(argv[3]).getroot().iter("testcase"):
            cases.append((float(case.get("time", 0) or 0), case.get("name", "?").split("  #")[0], case.get("status", "")))
        cases.sort(reverse=True)
        n = int(argv[4]) if len(argv) > 4 else 15
        record["longest_tests"] = [{"name": name, "s": round(s, 2), "status": status} for s, name, status in cases[:n]]
    else:
        stage = {"wall_s": round(float(argv[3]), 1), "cpu_s": round(float(argv[4]), 1)}
        for kv in argv[5:]:
            key, _, text = kv.partition("=")
            stage[key] = value(text)
        try:
            stage["load_average"] = [round(x, 2) for x in os.getloadavg()]
        except OSError:
            pass
        stages[argv[2]] = stage
    tmp = path + ".tmp"
    with open(tmp, "w") as f:
        json.dump(record, f, indent=1)
        f.write("\n")
    os.replace(tmp, path)


if __name__ == "__main__":
    try:
        main(sys.argv)
    except Exception as e:  # a timing record never fails a build or a test run
        print(f"record-timing: {e}", file=sys.stderr)
