"""Charts as inline SVG, so a report is one file that opens offline (no scripts, no CDN)."""

from __future__ import annotations

from html import escape

W, BAR_H, GAP, LABEL_W = 640, 18, 6, 220


def bars(rows: list[tuple[str, float | None, tuple[float, float] | None, int]],
         *, maximum: float = 1.0, unit: str = "") -> str:
    """Horizontal bars (label, value, 95% interval, n) with interval whiskers."""
    if not rows:
        return ""
    height = len(rows) * (BAR_H + GAP) + 24
    span = W - LABEL_W - 90
    out = [f'<svg class="chart" viewBox="0 0 {W} {height}" width="{W}" height="{height}" '
           'role="img" xmlns="http://www.w3.org/2000/svg">']
    for i, (label, value, ci, n) in enumerate(rows):
        y = 12 + i * (BAR_H + GAP)
        out.append(f'<text x="{LABEL_W - 6}" y="{y + 13}" text-anchor="end" '
                   f'class="lbl">{escape(label[:34])}</text>')
        out.append(f'<rect x="{LABEL_W}" y="{y}" width="{span}" height="{BAR_H}" '
                   'class="track"/>')
        if value is not None:
            w = max(0.0, min(1.0, value / maximum)) * span
            out.append(f'<rect x="{LABEL_W}" y="{y}" width="{w:.1f}" height="{BAR_H}" '
                       'class="bar"/>')
        if ci is not None:
            x0 = LABEL_W + max(0.0, min(1.0, ci[0] / maximum)) * span
            x1 = LABEL_W + max(0.0, min(1.0, ci[1] / maximum)) * span
            mid = y + BAR_H / 2
            out.append(f'<line x1="{x0:.1f}" x2="{x1:.1f}" y1="{mid}" y2="{mid}" '
                       'class="ci"/>')
        text = "–" if value is None else f"{value:.3f}{unit}"
        out.append(f'<text x="{LABEL_W + span + 6}" y="{y + 13}" class="val">{text} '
                   f'(n={n})</text>')
    out.append("</svg>")
    return "".join(out)


def histogram(values: list[float], *, bins: int = 20, unit: str = "s") -> str:
    if not values:
        return ""
    lo, hi = min(values), max(values)
    width = (hi - lo) / bins or 1.0
    counts = [0] * bins
    for v in values:
        counts[min(bins - 1, int((v - lo) / width))] += 1
    top = max(counts)
    h, bw = 140, (W - 60) / bins
    out = [f'<svg class="chart" viewBox="0 0 {W} {h + 30}" width="{W}" height="{h + 30}" '
           'role="img" xmlns="http://www.w3.org/2000/svg">']
    for i, c in enumerate(counts):
        bh = (c / top) * h if top else 0
        out.append(f'<rect x="{30 + i * bw:.1f}" y="{h - bh + 5:.1f}" width="{bw - 2:.1f}" '
                   f'height="{bh:.1f}" class="bar"><title>{lo + i * width:.3f}–'
                   f'{lo + (i + 1) * width:.3f} {unit}: {c}</title></rect>')
    out.append(f'<text x="30" y="{h + 22}" class="lbl">{lo:.3f} {unit}</text>')
    out.append(f'<text x="{W - 30}" y="{h + 22}" text-anchor="end" class="lbl">{hi:.3f} '
               f'{unit}</text></svg>')
    return "".join(out)
