"""Small shared word lists of the canonical form."""

from __future__ import annotations

# Numbers that index names carry ("沪深300", "S&P 500", "Nasdaq 100"): after a name they name it.
INDEX_NUMBERS = frozenset({"30", "40", "50", "100", "150", "180", "200", "225", "250", "300",
                           "380", "400", "500", "600", "800", "1000", "2000", "3000"})
