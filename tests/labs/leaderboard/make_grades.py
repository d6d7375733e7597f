"""Writes the planted grade files beside it, for `lab leaderboard`'s tests: lab 01 graded twice, laid
out as lab/grading/writers/json_writer.cpp writes them, with an H100's figures
(ours, the copy bandwidth and the peaks from docs/results/h100). Constructed, not measured.

class-2026-11-22.json: ada and eve (top tier; eve's file name is HTML), bo (0.63), mallory (refused:
faster than the DRAM peak allows), dan (check failed), fay (did not compile).
regrade-2026-11-24.json: bo again, now 0.87 (replaces the first grade), and gus (0.32).

    python3 tests/labs/leaderboard/make_grades.py
"""
import json
from pathlib import Path

OUT = Path(__file__).resolve().parent
BYTES = 12 * 2**26
OURS_MS, COPY = 0.2593280076980591, 2982.4173070880647
PEAKS = {"compute_capability": "9.0", "dram_gbps": 3352.32, "fp32_gflops": 66908.16, "l2_bytes": 52428800.0,
         "sm_count": 132, "fp32_lanes_per_sm": 128, "sm_clock_mhz": 1980.0, "memory_clock_mhz": 2619.0,
         "memory_bus_width_bits": 5120, "integrated": False,
         "dram_method": "2 x memory clock x bus width / 8 (cudaDevAttrMemoryClockRate, cudaDevAttrGlobalMemoryBusWidth)",
         "fp32_method": "SMs x fp32 lanes per SM x 2 (FMA) x SM clock (cudaDevAttrClockRate)"}
LIMIT = {"limit": 3352.32 * BYTES / (BYTES - 52428800), "unit": "GB/s",
         "bound": "the DRAM peak for a 805306368-byte working set",
         "derivation": "3352.3 GB/s x W / (W - L2) = 3352.3 x 805306368 / 752877568 = 3585.8 GB/s"}
TIERS = [(0.85, 40), (0.6, 25), (0.3, 10)]


def timing(ms, noise, samples):
    gbps = BYTES / (ms * 1e-3) / 1e9
    return {"median_ms": ms, "noise": noise, "samples": samples, "gbps": gbps, "gflops": 2**26 / (ms * 1e-3) / 1e9}


def timed(file, ms, refused=False):
    student, ours = timing(ms, 0.0041, 187), timing(OURS_MS, 0.0033, 214)
    speed, frac = OURS_MS / ms, student["gbps"] / COPY
    bench = {"size": "67108864", "student": student, "runtime": ours, "speed": speed, "samples_verified": 8,
             "input_reset_ms": 0.1843, "limit": LIMIT}
    tier = next(((f, p) for f, p in TIERS if speed >= f), None)
    if refused:
        refusal = (f"faster than the hardware allows: the kernel skipped work (at 67108864: {student['gbps']:.1f} GB/s"
                   f" > {LIMIT['limit']:.1f} GB/s, the DRAM peak for a 805306368-byte working set)")
        feedback = [f"refused, 0 of 40 performance points: {refusal}"]
        tier, perf = None, 0
    else:
        refusal = None
        perf = tier[1] if tier else 0
        feedback = [f"your kernel runs at {speed:.2f} of the speed of ours (the runtime layer), {100 * frac:.0f}% of "
                    "the GPU's copy bandwidth",
                    f"tier at least {tier[0]:.2f} of ours: {tier[1]} of 40 performance points" if tier
                    else "below every tier: 0 of 40 performance points"]
        better = [t for t in TIERS if t[0] > speed]
        if better:
            feedback.append(f"the next tier, at least {better[-1][0]:.2f} of ours, is worth {better[-1][1]} "
                            "(`layerbench lab profile` shows what limits your kernel)")
    return submission(file, "refused" if refused else "graded", 7, 60, speed, frac, tier[0] if tier else None, perf,
                      refusal, [bench], feedback)


def submission(file, outcome, passed, check_points, speed, frac, tier, perf, refusal, benchmarks, feedback):
    return {"file": file, "lab": "01-vector-add", "outcome": outcome, "points": check_points + perf, "max_points": 100,
            "check": {"sizes_passed": passed, "sizes": 7, "points": check_points, "max_points": 60},
            "performance": {"speed_vs_runtime": speed, "fraction_of_ceiling": frac, "tier_at_least": tier,
                            "points": perf, "max_points": 40, "refused": refusal, "benchmarks": benchmarks},
            "feedback": feedback}


def document(graded_at, submissions):
    return {"lab": "01-vector-add", "title": "Vector add: your first kernel", "graded_at": graded_at,
            "gpu": "NVIDIA H100 80GB HBM3",
            "ceiling": {"what": "copy bandwidth", "unit": "GB/s", "value": COPY}, "peaks": PEAKS,
            "submissions": submissions}


first = document("2026-11-22T14:03:17Z", [
    timed("students/ada/vector_add.cu", 0.2861),
    timed("students/bo/vector_add.cu", 0.4102),
    timed("students/eve/<img src=x onerror=alert(1)>.cu", 0.2750),
    timed("students/mallory/vector_add.cu", 0.1620, refused=True),
    submission("students/dan/vector_add.cu", "check failed", 5, 42.9, None, None, None, 0, None, [],
               ["2 of 7 check sizes failed: the performance part is graded only for a kernel that passes them all",
                "n = 257: elements from 256 on were never written (still the poison): does your grid cover n?"]),
    submission("students/fay/vector_add.cu", "did not compile", 0, 0, None, None, None, 0, None, [],
               ["vector_add.cu(5): error: identifier \"idx\" is undefined", "1 error detected in the compilation of "
                "\"vector_add.cu\"."]),
])
second = document("2026-11-24T09:30:05Z", [
    timed("students/bo/vector_add.cu", 0.2990),
    timed("students/gus/vector_add.cu", 0.8200),
])
for name, doc in (("class-2026-11-22.json", first), ("regrade-2026-11-24.json", second)):
    (OUT / name).write_text(json.dumps(doc, indent=2) + "\n")
