"""Text the summaries share: sizes as people write them, and a median with its range."""
import statistics


def size_text(b):
    """8 B, 4 KiB, 64 MiB."""
    for unit, n in (("MiB", 1 << 20), ("KiB", 1 << 10)):
        if b >= n:
            return f"{b // n} {unit}"
    return f"{b} B"


def spread(xs, fmt="{:.2f}"):
    """'median (min–max)', or '-' for no values."""
    if not xs:
        return "-"
    return f"{fmt.format(statistics.median(xs))} ({fmt.format(min(xs))}–{fmt.format(max(xs))})"
