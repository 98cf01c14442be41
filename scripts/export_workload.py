#!/usr/bin/env python3
"""Exports a PyTorch model's gradients as a collbench workload CSV (see
workloads/README.md): one line per trainable parameter, in the order backward
produces them (the reverse of model.parameters(), as DDP buckets them), with each
layer's forward FLOPs measured by hooks on one sample input.

Usage:
  export_workload.py torchvision.models:resnet50 --input 1,3,224,224 > resnet50.csv
  export_workload.py mypkg.model:build --input 1,128 --input-dtype long \\
      --sparse encoder.embed.weight=2560 > mine.csv
MODULE:CALLABLE builds the model (called without arguments). --sparse NAME=LOOKUPS
marks an embedding table sparse, with the ids one rank looks up per step.
Needs PyTorch (not installed by collbench's setup).
"""
import argparse
import importlib
import sys

import torch


def layer_flops(model, sample):
    """Forward FLOPs per module (convolutions and linear layers: 2 x MACs; others:
    one per output element), keyed by module name."""
    flops = {}

    def hook(name):
        def record(module, inputs, output):
            out = output[0] if isinstance(output, (tuple, list)) else output
            if not torch.is_tensor(out):
                return
            if isinstance(module, torch.nn.Conv2d) or isinstance(module, torch.nn.Conv1d):
                per_out = module.in_channels // module.groups * torch.tensor(module.kernel_size).prod().item()
                f = 2 * out.numel() * per_out
            elif isinstance(module, torch.nn.Linear):
                f = 2 * out.numel() * module.in_features
            else:
                f = out.numel()
            flops[name] = flops.get(name, 0) + f
        return record

    handles = [m.register_forward_hook(hook(n)) for n, m in model.named_modules()
               if next(m.parameters(recurse=False), None) is not None]
    with torch.no_grad():
        model(sample)
    for h in handles:
        h.remove()
    return flops


def main():
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("model", help="MODULE:CALLABLE returning an nn.Module")
    p.add_argument("--input", required=True, help="sample input shape, e.g. 1,3,224,224")
    p.add_argument("--input-dtype", default="float", choices=["float", "long"])
    p.add_argument("--sparse", action="append", default=[], help="NAME=LOOKUPS for a sparse embedding table")
    a = p.parse_args()
    module, _, fn = a.model.partition(":")
    model = getattr(importlib.import_module(module), fn)().eval()
    shape = [int(x) for x in a.input.split(",")]
    sample = torch.zeros(shape, dtype=torch.long) if a.input_dtype == "long" else torch.randn(shape)
    flops = layer_flops(model, sample)
    sparse = dict(s.split("=", 1) for s in a.sparse)
    dtypes = {torch.float32: "f32", torch.float64: "f64", torch.float16: "f16", torch.bfloat16: "bf16"}
    out = sys.stdout
    out.write("name,elements,dtype,kind,rows,row_elements,lookups,flops\n")
    seen_layers = set()
    for name, param in reversed(list(model.named_parameters())):
        if not param.requires_grad:
            continue
        layer = name.rsplit(".", 1)[0]
        f = 0 if layer in seen_layers else flops.get(layer, 0)  # a layer's first tensor in backward order
        seen_layers.add(layer)
        kind, rows, width, lookups = "dense", "", "", ""
        if name in sparse:
            kind, rows, width, lookups = "sparse", param.shape[0], param[0].numel(), sparse.pop(name)
        out.write(f"{name},{param.numel()},{dtypes[param.dtype]},{kind},{rows},{width},{lookups},{f}\n")
    if sparse:
        sys.exit("no trainable parameter named " + ", ".join(sparse))


if __name__ == "__main__":
    main()
