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


PALETTE = ("#b7791f", "#2e90fa", "#7a5af8", "#157f3b", "#b42318", "#667085")


def line(series: dict[str, list[tuple[str, float | None]]], *, maximum: float = 1.0,
         height: int = 180) -> str:
    """Lines over shared x labels (e.g. minutes), one per series, values 0..maximum; a point
    per value with its label and value as a tooltip; None leaves a gap."""
    xs = sorted({x for points in series.values() for x, _ in points})
    if not xs:
        return ""
    left, right, top, bottom = 40, 150, 10, 24
    plot_w, plot_h = W - left - right, height - top - bottom
    step = plot_w / max(1, len(xs) - 1)
    where = {x: left + (i * step if len(xs) > 1 else plot_w / 2) for i, x in enumerate(xs)}

    def y(v: float) -> float:
        return top + plot_h * (1 - max(0.0, min(1.0, v / maximum)))

    out = [f'<svg class="chart line" viewBox="0 0 {W} {height}" width="{W}" '
           f'height="{height}" role="img" xmlns="http://www.w3.org/2000/svg">']
    for frac in (0.0, 0.5, 1.0):
        gy = y(frac * maximum)
        out.append(f'<line x1="{left}" x2="{left + plot_w}" y1="{gy:.1f}" y2="{gy:.1f}" '
                   'class="grid"/>')
        out.append(f'<text x="{left - 4}" y="{gy + 4:.1f}" text-anchor="end" class="lbl">'
                   f'{frac * maximum:g}</text>')
    for i, (name, points) in enumerate(sorted(series.items())):
        colour = PALETTE[i % len(PALETTE)]
        runs: list[list[str]] = [[]]
        dots = []
        for x, v in sorted(points):
            if v is None:
                runs.append([])
                continue
            px, py = where[x], y(v)
            runs[-1].append(f"{px:.1f},{py:.1f}")
            dots.append(f'<circle cx="{px:.1f}" cy="{py:.1f}" r="3" fill="{colour}">'
                        f'<title>{escape(name)} {escape(x)}: {v:.3f}</title></circle>')
        for r in runs:
            if len(r) > 1:
                out.append(f'<polyline points="{" ".join(r)}" fill="none" '
                           f'stroke="{colour}" stroke-width="2" class="series"/>')
        out.extend(dots)
        out.append(f'<text x="{left + plot_w + 8}" y="{top + 12 + 14 * i}" class="lbl" '
                   f'fill="{colour}">{escape(name[:22])}</text>')
    out.append(f'<text x="{left}" y="{height - 6}" class="lbl">{escape(xs[0])}</text>')
    if len(xs) > 1:
        out.append(f'<text x="{left + plot_w}" y="{height - 6}" text-anchor="end" '
                   f'class="lbl">{escape(xs[-1])}</text>')
    out.append("</svg>")
    return "".join(out)
