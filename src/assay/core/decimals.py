"""Decimal helpers for the rubric: money and prices are compared as people round them."""

from __future__ import annotations

from decimal import MAX_EMAX, MIN_EMIN, ROUND_HALF_UP, Context, Decimal, InvalidOperation

ONE = Decimal(1)
# Wide enough that no quote, market value or volume (nor a wild ground-truth value) overflows;
# the default context's 28 digits made quantize() raise on 1e28.
WIDE = Context(prec=100, Emax=MAX_EMAX, Emin=MIN_EMIN)


def quantum_of(value: Decimal) -> Decimal:
    """The place of the last written digit: 112.905 → 0.001, 3383.2000 → 0.0001, 42 → 1."""
    exponent = value.as_tuple().exponent
    if not isinstance(exponent, int):  # NaN / Infinity never reach here, but stay total
        return ONE
    return Decimal(1).scaleb(exponent) if exponent < 0 else ONE


def round_half_up(value: Decimal, quantum: Decimal) -> Decimal:
    """Round to a multiple of `quantum` (a power of ten, possibly scaled by 万/亿) half-up."""
    if quantum <= 0:
        return value
    ctx = WIDE
    digits = value.adjusted() - quantum.adjusted() + 3
    if digits > ctx.prec:  # only absurd inputs get here; size the context to them
        ctx = Context(prec=digits + 3, Emax=MAX_EMAX, Emin=MIN_EMIN)
    steps = ctx.divide(value, quantum).quantize(ONE, rounding=ROUND_HALF_UP, context=ctx)
    return ctx.multiply(steps, quantum)


def to_decimal(text: str) -> Decimal | None:
    """Parse '1,234.50', '-0.59%', '+3.2' into a Decimal, or None when it is not a number."""
    try:  # the common case: a plain number (Decimal itself ignores surrounding blanks)
        value = Decimal(text)
    except InvalidOperation:
        pass
    else:
        return value if value.is_finite() else None
    cleaned = text.strip().replace(",", "").rstrip("%").strip()
    if not cleaned or cleaned in {"-", "--", "+"}:
        return None
    try:
        value = Decimal(cleaned)
    except InvalidOperation:
        return None
    return value if value.is_finite() else None


def plain(value: Decimal) -> str:
    """A Decimal as people write it (no exponent), for reasons and evidence."""
    text = format(value, "f")
    return text
