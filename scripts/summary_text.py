"""Text the summaries share: sizes as people write them, a median with its range, the CPU,
and whether a launch's two CPUs shared a cache (collbench-core-handoff)."""
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


def cpu_text(metadata):
    """One line per host of a collbench run's metadata: the CPU it ran on (issue 35 on)."""
    cpus = metadata.get("cpu")
    if not cpus:
        return "CPU: not recorded in these runs' metadata (collbench records it from issue 35 on).\n"
    lines = []
    for host, cpu in cpus.items():
        caches = ", ".join(f"{k} {v >> 10} KiB" for k, v in cpu["caches_bytes"].items())
        triad = cpu.get("triad", {})
        lines.append(f"CPU ({host}): {cpu['model']}; kernel features {' '.join(cpu['features'])}; {caches}; "
                     f"kernels **{cpu['kernel_path']}** (of {', '.join(cpu['kernel_paths_available'])}); one core's "
                     f"triad {triad.get('gb_per_s', 0):.1f} GB/s.\n")
    return "\n".join(lines)


# Cache-line handoff between the two CPUs: here 25-40 ns sharing a cache, 150-175 ns not.
SHARED_NS, APART_NS = 60, 100


def handoff(path):
    """collbench-core-handoff's output as {field: number}."""
    return {k: float(v) for k, v in (f.split("=") for f in open(path).read().split())}


def cpu_placement(before, after):
    """A launch between two handoff measurements: 'shared a cache', 'did not' or 'moved during the launch'."""
    both = (before["handoff_ns"], after["handoff_ns"])
    return ("shared a cache" if max(both) < SHARED_NS else "did not" if min(both) > APART_NS
            else "moved during the launch")
