"""A small document model, rendered both to Markdown and to a self-contained HTML page.

Text in paragraphs, list items, captions and table cells may use a little inline Markdown:
`code`, **bold** and [text](link). The HTML renderer converts exactly that and escapes the rest;
figures are embedded as data: URLs so the page opens from a file:// URL with no network.
"""
from __future__ import annotations

import base64
import html
import re
from dataclasses import dataclass, field
from pathlib import Path


@dataclass
class Heading:
    level: int
    text: str
    anchor: str = ""


@dataclass
class Paragraph:
    text: str


@dataclass
class BulletList:
    items: list[str]


@dataclass
class Table:
    headers: list[str]
    rows: list[list[str]]
    align: str = ""  # one letter per column: l(eft) or r(ight); default left


@dataclass
class Figure:
    png: Path  # absolute path of the PNG
    svg: Path | None
    caption: str
    alt: str
    clipped: list[str] = field(default_factory=list)  # texts cut off by the figure's edge (none, checked)


@dataclass
class Document:
    title: str
    blocks: list = field(default_factory=list)

    def h(self, level: int, text: str, anchor: str = "") -> None:
        self.blocks.append(Heading(level, text, anchor or _slug(text)))

    def p(self, text: str) -> None:
        self.blocks.append(Paragraph(text))

    def ul(self, items: list[str]) -> None:
        if items:
            self.blocks.append(BulletList(items))

    def table(self, headers: list[str], rows: list[list[str]], align: str = "") -> None:
        self.blocks.append(Table(headers, rows, align))

    def figure(self, fig: Figure) -> None:
        self.blocks.append(fig)


def _slug(text: str) -> str:
    return re.sub(r"[^a-z0-9]+", "-", text.lower()).strip("-")


# --- Markdown --------------------------------------------------------------------------------

def _md_cell(text: str) -> str:
    return str(text).replace("|", "\\|").replace("\n", " ")


def to_markdown(doc: Document, base: Path) -> str:
    """Markdown; figure paths relative to `base` (the folder report.md is written to)."""
    out = [f"# {doc.title}", ""]
    for block in doc.blocks:
        if isinstance(block, Heading):
            out += [f"{'#' * (block.level + 1)} {block.text}", ""]
        elif isinstance(block, Paragraph):
            out += [block.text, ""]
        elif isinstance(block, BulletList):
            out += [f"- {item}" for item in block.items] + [""]
        elif isinstance(block, Table):
            align = block.align.ljust(len(block.headers), "l")
            out.append("| " + " | ".join(_md_cell(h) for h in block.headers) + " |")
            out.append("|" + "|".join("---:" if a == "r" else "---" for a in align) + "|")
            out += ["| " + " | ".join(_md_cell(c) for c in row) + " |" for row in block.rows]
            out.append("")
        elif isinstance(block, Figure):
            png = block.png.relative_to(base).as_posix()
            out.append(f"![{block.alt}]({png})")
            out.append("")
            svg = f" ([SVG]({block.svg.relative_to(base).as_posix()}))" if block.svg else ""
            out += [f"*{block.caption}*{svg}", ""]
    return "\n".join(out).rstrip() + "\n"


# --- HTML ------------------------------------------------------------------------------------

_INLINE = re.compile(r"`([^`]+)`|\*\*([^*]+)\*\*|\[([^\]]+)\]\(([^)\s]+)\)")


def inline_html(text: str) -> str:
    parts, last = [], 0
    for m in _INLINE.finditer(text):
        parts.append(html.escape(text[last:m.start()]))
        if m.group(1) is not None:
            parts.append(f"<code>{html.escape(m.group(1))}</code>")
        elif m.group(2) is not None:
            parts.append(f"<strong>{html.escape(m.group(2))}</strong>")
        else:
            parts.append(f'<a href="{html.escape(m.group(4), quote=True)}">{inline_html(m.group(3))}</a>')
        last = m.end()
    parts.append(html.escape(text[last:]))
    return "".join(parts)


_CSS = """
body { font: 15px/1.5 system-ui, -apple-system, "Segoe UI", "DejaVu Sans", sans-serif; color: #1d1d1f;
       max-width: 1100px; margin: 2em auto; padding: 0 1.2em; }
h1 { font-size: 1.7em; border-bottom: 2px solid #ddd; padding-bottom: .3em; }
h2 { font-size: 1.35em; margin-top: 2em; border-bottom: 1px solid #e4e4e4; padding-bottom: .2em; }
h3 { font-size: 1.1em; margin-top: 1.5em; }
table { border-collapse: collapse; margin: .6em 0 1.2em; font-size: 13.5px; }
th, td { border: 1px solid #d8d8d8; padding: 3px 8px; vertical-align: top; }
th { background: #f3f3f3; text-align: left; }
td:first-child { white-space: nowrap; }
td.r { text-align: right; font-variant-numeric: tabular-nums; white-space: nowrap; }
tr:nth-child(even) td { background: #fafafa; }
code { font: 12.5px ui-monospace, "DejaVu Sans Mono", monospace; background: #f2f2f2; padding: 0 3px; border-radius: 3px; }
/* Figures at their drawn size (at most 1380 px wide, one screen), wider than the text column and
   centred on it, never wider than the window: no horizontal scrolling. */
figure { margin: 1.2em 0 2em; width: min(1380px, calc(100vw - 3em)); position: relative; left: 50%;
         transform: translateX(-50%); }
figure img { display: block; max-width: 100%; height: auto; margin: 0 auto; border: 1px solid #eee; }
figcaption { font-size: 13.5px; color: #444; max-width: 1100px; margin: .4em auto 0; }
/* A table wider than the column scrolls inside its own box, not the page. */
.table { max-width: 100%; overflow-x: auto; }
"""


def _img_data_url(png: Path) -> str:
    return "data:image/png;base64," + base64.b64encode(png.read_bytes()).decode("ascii")


def to_html(doc: Document) -> str:
    """One self-contained page: inline CSS, figures as data: URLs, no scripts, no network."""
    out = ["<!DOCTYPE html>", '<html lang="en">', "<head>", '<meta charset="utf-8">',
           '<meta name="viewport" content="width=device-width, initial-scale=1">',
           f"<title>{html.escape(doc.title)}</title>", f"<style>{_CSS}</style>", "</head>", "<body>",
           f"<h1>{html.escape(doc.title)}</h1>"]
    for block in doc.blocks:
        if isinstance(block, Heading):
            tag = f"h{block.level + 1}"
            out.append(f'<{tag} id="{block.anchor}">{inline_html(block.text)}</{tag}>')
        elif isinstance(block, Paragraph):
            out.append(f"<p>{inline_html(block.text)}</p>")
        elif isinstance(block, BulletList):
            out.append("<ul>" + "".join(f"<li>{inline_html(i)}</li>" for i in block.items) + "</ul>")
        elif isinstance(block, Table):
            align = block.align.ljust(len(block.headers), "l")
            rows = []
            if any(block.headers):  # key/value tables have no header row
                rows.append("<tr>" + "".join(f"<th>{inline_html(h)}</th>" for h in block.headers) + "</tr>")
            for row in block.rows:
                cells = "".join(f'<td class="r">{inline_html(c)}</td>' if a == "r" else f"<td>{inline_html(c)}</td>"
                                for c, a in zip(row, align))
                rows.append(f"<tr>{cells}</tr>")
            out.append('<div class="table"><table>' + "\n".join(rows) + "</table></div>")
        elif isinstance(block, Figure):
            out.append(f'<figure><img src="{_img_data_url(block.png)}" alt="{html.escape(block.alt, quote=True)}">'
                       f"<figcaption>{inline_html(block.caption)}</figcaption></figure>")
    out += ["</body>", "</html>", ""]
    return "\n".join(out)
