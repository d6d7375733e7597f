"""Formatting shared by the report, the comparison and the plots."""
from __future__ import annotations

import math

_SUPERSCRIPT = str.maketrans("0123456789", "⁰¹²³⁴⁵⁶⁷⁸⁹")


def is_pow2(n: int) -> bool:
    return n > 0 and n & (n - 1) == 0


def size_label(size: tuple[int, ...], unicode: bool = True) -> str:
    """(1048576,) -> '2^20' ('2²⁰' with unicode); (512, 512, 512) -> '512³'; (m, n, k) -> 'm×n×k'."""
    if len(size) == 1:
        n = size[0]
        if is_pow2(n) and n >= 1024:
            exp = n.bit_length() - 1
            return f"2{str(exp).translate(_SUPERSCRIPT)}" if unicode else f"2^{exp}"
        return f"{n:,}".replace(",", " ") if unicode else str(n)
    if len(size) == 3 and size[0] == size[1] == size[2]:
        return f"{size[0]}³" if unicode else f"{size[0]}x{size[0]}x{size[0]}"
    return ("×" if unicode else "x").join(str(v) for v in size)


def size_mathtext(size: tuple[int, ...]) -> str:
    """A size label for matplotlib (mathtext for powers of two)."""
    if len(size) == 1 and is_pow2(size[0]) and size[0] >= 1024:
        return f"$2^{{{size[0].bit_length() - 1}}}$"
    return size_label(size)


def sig(value: float | None, digits: int = 3) -> str:
    """A number with about `digits` significant digits, no exponent for everyday magnitudes."""
    if value is None or (isinstance(value, float) and not math.isfinite(value)):
        return "–"
    if value == 0:
        return "0"
    magnitude = math.floor(math.log10(abs(value)))
    if magnitude >= digits - 1:
        return f"{value:,.0f}".replace(",", " ") if abs(value) >= 10000 else f"{value:.0f}"
    if magnitude < -4:
        return f"{value:.{digits - 1}e}"
    decimals = digits - 1 - magnitude
    return f"{value:.{decimals}f}"


def ms(value: float | None) -> str:
    return sig(value, 3)


def rate(value: float | None) -> str:
    """GB/s or GFLOP/s: whole numbers from 100 up, three significant digits below."""
    if value is None:
        return "–"
    return f"{value:,.0f}".replace(",", " ") if abs(value) >= 100 else sig(value, 3)


def pct(value: float | None, digits: int = 1) -> str:
    if value is None:
        return "–"
    return f"{value * 100:.{digits}f}%"


def noise(rel: float | None, samples: int | None = None) -> str:
    """'±4.2%' or 'not measured' (fewer than two samples)."""
    if rel is None:
        return "not measured" if samples is not None and samples < 2 else "–"
    if rel < 0.0005:
        return "<±0.1%"
    return f"±{rel * 100:.1f}%" if rel < 10 else f"±{rel * 100:.0f}%"


def times(value: float | None) -> str:
    """A speed-up or ratio: '12.3×', '0.55×'."""
    if value is None:
        return "–"
    if value >= 100:
        return f"{value:,.0f}×".replace(",", " ")
    if value >= 10:
        return f"{value:.1f}×"
    if value >= 0.995:
        return f"{value:.2f}×"
    return f"{value:#.2g}×"


def times_short(value: float | None) -> str:
    """Two significant digits for bar labels: '50×', '3.3×', '0.92×', '0.018×'."""
    if value is None:
        return "–"
    if value >= 9.95:
        return f"{value:.0f}×"
    if value >= 0.995:
        return f"{value:.1f}×"
    return f"{value:#.2g}×"


def bytes_h(value: float | None) -> str:
    if value is None:
        return "–"
    for unit, scale in (("GiB", 2 ** 30), ("MiB", 2 ** 20), ("KiB", 2 ** 10)):
        if value >= scale:
            return f"{value / scale:.3g} {unit}"
    return f"{value:.0f} B"


# --- the docs' figures (tools/doc_figures.py, docs/results/README.md): one format a unit, stable
# from run to run: GB/s and GFLOP/s whole (a space every three digits from 10 000), ms to four
# significant digits, µs to three, trailing zeros kept.

def sig_kept(x: float, digits: int) -> str:
    """x to `digits` significant digits, trailing zeros kept, no exponent."""
    if x == 0:
        return "0"
    decimals = max(0, digits - 1 - math.floor(math.log10(abs(x))))
    return f"{x:.{decimals}f}"  # 12345 at 3 digits keeps the integer


def grouped(x: float) -> str:
    """Whole, thousands apart by a space from 10 000 (the docs' style: 3080, 51 283)."""
    n = int(round(x))
    return f"{n:,}".replace(",", " ") if abs(n) >= 10000 else str(n)


def docs_rate(x: float) -> str:
    """GB/s in the docs: whole from 100 (grouped), three significant digits below."""
    return grouped(x) if x >= 100 else sig_kept(x, 3)


def docs_percent(fraction: float) -> str:
    """A fraction as a percentage: whole from 10%, one decimal below."""
    p = 100 * fraction
    return (f"{p:.0f}" if abs(p) >= 9.95 else f"{p:.1f}") + "%"


def docs_ratio(x: float) -> str:
    """A speed-up: '1.73×', '12.3×', '150×'."""
    return (f"{x:.2f}" if x < 9.995 else f"{x:.1f}" if x < 99.95 else f"{x:.0f}") + "×"


def docs_cost_ms(values: list[float]) -> str:
    """One-time costs: ms, or s from 1000 ms; one value or a range in the unit of its largest."""
    top = max(values)
    if top >= 1000:
        return "–".join(sig_kept(v / 1000, 2) for v in values) + " s"
    return "–".join(grouped(v) if v >= 10 else sig_kept(v, 2) for v in values) + " ms"


def duration(seconds: float) -> str:
    """A build or test stage's time: '42 s', '3 min 05 s'."""
    s = round(seconds)
    return f"{s // 60} min {s % 60:02d} s" if s >= 60 else f"{s} s"
