"""``certify import tracr DIR -o MODEL.json [--check] [--json]``: a tracr model as model.json v2.

``--check`` then runs the imported hard model (exact rationals) on every input of the
export's ``reference.json`` and reports where it disagrees with the RASP program, and,
separately, where float64 softmax at tracr's own temperature decides differently from
the hard model.  Exit 0 when both agree everywhere, 1 when something disagrees.
"""
from __future__ import annotations

import json
from pathlib import Path

from ..errors import UserError
from ..model import dumps_model, model_from_dict


def register(subparsers) -> None:
    p = subparsers.add_parser("import", help="import a compiled model from another tool (tracr)")
    p.add_argument("source", choices=["tracr"], help="the tool that compiled the model")
    p.add_argument("dir", help="a tracr-export/1 directory (model.json, params_f64.npz, params.npz)")
    p.add_argument("-o", "--output", required=True, help="write the model.json v2 file here")
    p.add_argument("--check", action="store_true",
                   help="compare the hard model with the RASP outputs in DIR/reference.json, and soft with hard")
    p.add_argument("--json", action="store_true", help="one JSON object on stdout")
    p.set_defaults(func=main)


def main(args) -> int:
    from ..tracr_import import check_against_reference, convert, load_export

    export = load_export(args.dir)
    obj = convert(export)
    model = model_from_dict(obj)
    try:
        Path(args.output).write_text(dumps_model(obj))
    except OSError as exc:
        raise UserError(f"--output: cannot write {args.output}: {exc.strerror}") from None
    result = {"model": args.output, "name": model.name, "dims": len(model.dims), "layers": len(model.layers),
              "heads": len(model.heads), "max_length": model.max_length,
              "temperature_interval": obj["temperature_interval"]}
    status = 0
    if args.check:
        ref_path = Path(args.dir) / "reference.json"
        try:
            reference = json.loads(ref_path.read_text())
        except (OSError, ValueError) as exc:
            raise UserError(f"--check: cannot read {ref_path}: {exc}") from None
        rep = check_against_reference(model, export, reference)
        result["check"] = {"inputs": rep.inputs, "hard_vs_rasp": rep.hard_vs_rasp,
                           "hard_vs_rasp_examples": list(rep.hard_vs_rasp_examples),
                           "rasp_undefined_positions": rep.undefined_positions,
                           "soft_vs_hard_at_tracr_tau": rep.soft_vs_hard,
                           "soft_vs_hard_examples": list(rep.soft_vs_hard_examples)}
        status = 1 if rep.hard_vs_rasp or rep.soft_vs_hard else 0
    if args.json:
        print(json.dumps(result))
        return status
    print(f"wrote {args.output}: {result['layers']} layers, {result['heads']} heads, {result['dims']} dims, "
          f"max_length {model.max_length}, τ in [{obj['temperature_interval'][0]}, {obj['temperature_interval'][1]}]")
    if args.check:
        c = result["check"]
        print(f"hard model vs RASP program: {c['hard_vs_rasp']} of {c['inputs']} inputs disagree"
              + "".join(f"\n  {e['input']}: hard {e['hard']}, RASP {e['rasp']}" for e in c["hard_vs_rasp_examples"]))
        if c["rasp_undefined_positions"]:
            print(f"  ({c['rasp_undefined_positions']} positions where the RASP program outputs None)")
        print(f"soft (float64, tracr's τ) vs hard: {c['soft_vs_hard_at_tracr_tau']} of {c['inputs']} inputs disagree"
              + "".join(f"\n  {e['input']}: hard {e['hard']}, soft {e['soft']}" for e in c["soft_vs_hard_examples"]))
    return status
