"""``snl batch IN -o OUT``: analyse many boards from a file."""

from __future__ import annotations

from typing import Any

from ..batch import DEFAULT_COLUMNS, analyze_to_parquet
from ..batch.data import DEFAULT_CHUNK_SIZE
from .common import add_command, add_progress_arguments, check_flag, print_json


def add_parser(sub: Any) -> None:
    """Register ``snl batch IN -o OUT``."""
    p = add_command(
        sub, "batch", help="analyse many boards from a JSON Lines or Parquet file",
        description="Analyse every board of IN (JSON Lines: one Board.to_dict per line; or "
                    "Parquet: columns size, start, overshoot, chain, jump_src, jump_dst, "
                    "dice_faces, dice_probs) into OUT, a directory of Parquet parts that a "
                    "rerun resumes.",
        examples=["snl batch boards.jsonl -o results/",
                  "snl batch boards.jsonl -o tails/ --columns min_throws,mean,p90 --json",
                  "snl batch boards.parquet -o results/ --errors coerce "
                  "--scheduler tcp://host:8786"])
    p.add_argument("input", metavar="IN", help="board file (.jsonl or .parquet)")
    p.add_argument("-o", "--output", required=True, metavar="OUT",
                   help="output directory of Parquet parts")
    p.add_argument("--columns", default=",".join(DEFAULT_COLUMNS),
                   help="comma-separated columns, e.g. min_throws,mean,median,p90 "
                        f"(default {','.join(DEFAULT_COLUMNS)})")
    p.add_argument("--chunk-size", type=int, metavar="N",
                   help=f"boards per chunk/part (default {DEFAULT_CHUNK_SIZE}; with "
                        "--scheduler, 4 tasks per worker thread)")
    p.add_argument("--errors", choices=("raise", "coerce"), default="raise",
                   help="stop at the first bad board, or record it in an 'error' column")
    p.add_argument("--overwrite", action="store_true",
                   help="replace results of another input or other settings")
    p.add_argument("--allow-mixed-versions", action="store_true",
                   help="keep parts computed by another version of snl_numeric (or accept "
                        "Dask workers running one) instead of refusing")
    p.add_argument("--scheduler", metavar="ADDRESS",
                   help="run on a Dask cluster (e.g. tcp://host:8786)")
    add_progress_arguments(p)
    p.add_argument("--json", action="store_true", help="print the run summary as JSON")
    p.set_defaults(func=run)


def run(args: Any) -> int:
    if args.chunk_size is not None:
        check_flag(args.chunk_size, "--chunk-size", low=1)
    columns = [c.strip() for c in args.columns.split(",") if c.strip()]
    client = None
    if args.scheduler:
        try:
            from distributed import Client
        except ImportError:  # pragma: no cover - depends on the environment
            raise ImportError("--scheduler needs Dask: pip install 'snl_numeric[dask]'"
                              ) from None
        client = Client(args.scheduler)
    try:
        run = analyze_to_parquet(args.input, args.output, columns=columns, errors=args.errors,
                                 chunk_size=args.chunk_size, client=client,
                                 progress=args.progress, overwrite=args.overwrite,
                                 allow_mixed_versions=args.allow_mixed_versions)
    finally:
        if client is not None:
            client.close()
    if args.json:
        print_json(run.__dict__)
    else:
        print(f"{run.rows} boards -> {run.path} ({run.chunks} parts: {run.computed} computed, "
              f"{run.reused} reused; {run.errors} errors)")
    return 0
