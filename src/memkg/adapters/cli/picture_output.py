"""``--format svg|dot`` for the commands that have a picture: history, lineage, support, packet.

The picture is drawn by :mod:`memkg.adapters.pictures` (SVG laid out by memkg, no Graphviz
needed; ``dot`` text for those who have Graphviz) and written to standard output,
or to ``-o FILE``.
"""

from __future__ import annotations

import argparse
import sys
from collections.abc import Sequence
from typing import Any

from ..pictures import picture, render
from .arguments import open_store

PICTURE_FORMATS = ("svg", "dot")


def wants_picture(args: argparse.Namespace) -> bool:
    return getattr(args, "format", None) in PICTURE_FORMATS


def draw(args: argparse.Namespace, kind: str, claims: str | Sequence[str], **options: Any) -> int:
    """Draw the picture of ``kind`` for ``claims`` as ``args.format``; exit code 0."""
    with open_store(args, write=False) as store:
        named = (store.read_iri(claims, what="claim").value if isinstance(claims, str)
                 else [store.read_iri(c, what="claim").value for c in claims])
        text = render(picture(store, kind, named, tenant=args.tenant, **options), args.format)
    emit(args, kind, text)
    return 0


def emit(args: argparse.Namespace, kind: str, text: str) -> None:
    """A drawn picture to ``-o FILE`` (saying so on stderr) or standard output."""
    output = getattr(args, "output", None)
    if output:
        with open(output, "w", encoding="utf-8") as f:
            f.write(text)
        print(f"{output}: {kind} picture ({args.format})", file=sys.stderr)
    else:
        sys.stdout.write(text)


def picture_options(p: argparse.ArgumentParser) -> None:
    """``-o FILE`` for a picture (the format is the command's ``--format``)."""
    p.add_argument("-o", "--output", metavar="FILE", help="write the picture (--format svg|dot) to FILE")
