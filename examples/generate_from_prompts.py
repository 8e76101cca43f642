"""Pipeline example: a mesh for every line of a prompt file, then save the .blend.

    blender -b -P examples/generate_from_prompts.py -- --prompts props.txt --out props.blend
    python examples/generate_from_prompts.py -- --prompts props.txt --out props.blend  # bpy module

Point Kiln at the service first: KILN_API_KEY and KILN_BASE_URL in the environment (or the
preferences). In background mode the batch operator blocks until every job is imported or
failed, so the file is complete when it is saved. If Kiln is not installed in this Blender,
it is enabled from this repository's working tree.
"""

from __future__ import annotations

import argparse
import sys
import tempfile
from pathlib import Path

import bpy

ROOT = Path(__file__).resolve().parents[1]


def parse_args(argv: list[str]) -> argparse.Namespace:
    parser = argparse.ArgumentParser(prog="generate_from_prompts.py", description=__doc__.splitlines()[0])
    parser.add_argument("--prompts", type=Path, required=True, help=".txt (a prompt a line) or .csv")
    parser.add_argument("--out", type=Path, required=True, help="the .blend to save")
    parser.add_argument("--summary", type=Path, help="also write a JSON summary of the jobs here")
    parser.add_argument("--resolution", choices=("AUTO", "1024", "1536"), default="AUTO")
    return parser.parse_args(argv[argv.index("--") + 1 :] if "--" in argv else [])


def ensure_kiln() -> None:
    """Use the installed Kiln, or mount this working tree as an extension repository."""
    if hasattr(bpy.types, "KILN_OT_generate_batch"):
        return
    sys.path.insert(0, str(ROOT / "tests" / "support" / "blender_scripts"))
    from harness import enable_kiln

    enable_kiln(Path(tempfile.mkdtemp(prefix="kiln-extensions-")))


def main() -> int:
    args = parse_args(sys.argv)
    ensure_kiln()
    # Blender keeps add-ons offline until allowed; a generation pipeline allows it explicitly.
    bpy.context.preferences.system.use_online_access = True
    try:
        bpy.ops.kiln.generate_batch(
            filepath=str(args.prompts.resolve()),
            summary_path=str(args.summary.resolve()) if args.summary else "",
            resolution=args.resolution,
        )
    except RuntimeError as exc:
        print(f"generate_from_prompts: {exc}", file=sys.stderr)
        return 1
    bpy.ops.wm.save_as_mainfile(filepath=str(args.out.resolve()))
    count = sum("kiln_task_id" in obj for obj in bpy.data.objects)
    print(f"Saved {args.out} with {count} Kiln objects")
    return 0


if __name__ == "__main__":
    sys.exit(main())
