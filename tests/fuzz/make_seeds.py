#!/usr/bin/env python3
"""Writes the fuzz targets' seed inputs into tests/fuzz/corpus/TARGET/seed-*: small valid
inputs of every kind, most cut down from committed results. Inputs that found a defect
sit beside them as found-*; this script leaves those alone. Run from the repository root."""
import json
import os
import pathlib

ROOT = pathlib.Path(__file__).resolve().parents[2]
CORPUS = ROOT / "tests" / "fuzz" / "corpus"


def put(target, name, data):
    d = CORPUS / target
    d.mkdir(parents=True, exist_ok=True)
    (d / f"seed-{name}").write_bytes(data if isinstance(data, bytes) else data.encode())


def first_rows(doc, per_kind):
    """The document with at most `per_kind` rows of each (kind, test, link)."""
    kept, seen = [], {}
    for row in doc["rows"]:
        key = (row.get("kind"), row.get("test"), row.get("link"), row.get("algorithm"))
        if seen.get(key, 0) < per_kind:
            seen[key] = seen.get(key, 0) + 1
            kept.append(row)
    doc = dict(doc)
    doc["rows"] = kept
    return doc


def main():
    # Workloads (first byte even) and compute profiles (odd).
    put("workload_csv", "dense", "\0name,elements\nfc.weight,1000\nfc.bias,10\n")
    put("workload_csv", "every_column",
        "\0# a comment\nname,elements,dtype,kind,rows,row_elements,lookups,flops\n"
        "emb,64,f32,sparse,16,4,5,100\nfc,10,bf16,dense,,,,2.5e6\n\"quoted, name\",8,f16,dense,0,0,0,0\n")
    put("workload_csv", "profile", "\1name,ms\nforward,3\nfc.weight,1.5\nconv1.weight,0.25\noptimizer,0.5\n")
    # Count matrices: the first byte is the rank count less one.
    put("count_matrix", "3x3", "\2" + (ROOT / "tests/cli/traffic_3x3.csv").read_text())
    put("count_matrix", "2x2_comments", "\1# senders by row\n0, 1.5\n2e3,0 # hot\n")
    # Routing: spellings, and histograms (bit 64 of the first byte) of 8 experts.
    for i, spelling in enumerate(["uniform", "zipf:1.2", "zipf:0.8:42", "hot:3:0.5"]):
        put("routing", f"spelling{i}", "\7" + spelling)
    put("routing", "histogram", "\x47" + "# tokens per expert\n5,1,1,2,0,0,3,9\n")
    # A fitted cost model and the p2p result it came from, cut to a few rows.
    raw = ROOT / "results/model-per-call-8x1/raw"
    put("cost_model", "fitted", (raw / "100mbe-8x1-r1-model.json").read_text())
    put("cost_model", "minimal", json.dumps({"intra_host": {"alpha_us": 1, "beta_gbps": 10},
                                             "inter_host": {"alpha_us": 50, "beta_gbps": 0.1}}))
    p2p = first_rows(json.loads((raw / "100mbe-8x1-r1-p2p.json").read_text()), 2)
    put("p2p_result", "fit_rows", json.dumps(p2p))
    # Results tune reads (MPICH's, as this build's library names itself) and tuning files.
    mpich = ROOT / "results/tune/mpich-4x1-100mbe-allreduce"
    measured = json.loads((mpich / "measure/round-1/allreduce.json").read_text())
    measured["rows"] = measured["rows"][:6]
    put("tune_results", "mpich_rows", json.dumps(measured))
    put("tuning_file", "mpich_selection", (mpich / "tuning-file").read_text())
    put("tuning_file", "open_mpi_rules",
        (ROOT / "results/tune/openmpi-4x1-100mbe-allreduce/tuning-file").read_text())
    # Command lines: arguments after `collbench`, NUL-separated; the first byte picks ranks.
    lines = [
        "run -b 8 -e 64M -f 2 -n auto -w 10 --watchdog 30",
        "run -c alltoallv --counts zipf:1.1:7 -b 1K -e 1M --size-per peer",
        "run -c broadcast -r 1 -a mpi,binomial --segment-size 8K -d bf16 -o max",
        "ps --servers 1 -b 4K -e 64K --sparse-rows 8 --row-bytes 64",
        "replay --workload lm1b --compute-ms 10 --sparse-strategy dense,allgather --batch 4",
        "p2p -b 1 -e 1M --window 64 --fit-ranges 3 -t latency,bandwidth",
        "schedule -c allgather --ranks 7 --bytes 28 --rank 3",
        "model predict --ranks 64 -b 8 -e 1G",
        "tune --check tuning-file",
        "workloads show resnet50 --bucketing ddp --compute-ms 100",
    ]
    for i, line in enumerate(lines):
        put("command_line", f"line{i}", "\3" + "\0".join(line.split()))


if __name__ == "__main__":
    main()
