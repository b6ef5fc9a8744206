"""`make bench`: every figure of the service at scale, each beside its ceiling where it has
one. Figures only, no time asserted.

    python -m bench                 # every part, in order
    python -m bench search api      # only these parts (make bench PARTS="search api")

Each part's printed output is shown as it runs and written into docs/benchmarks.md, in the
part's own section, with when and where it ran (bench/document.py); the sections of parts
not run are kept. `python -m bench.<name>` runs one part alone and writes nothing.
"""

from __future__ import annotations

import contextlib
import io
import os
import sys
import time
import traceback

from bench import (
    api,
    bulk,
    calls,
    delivery,
    document,
    export,
    forecast,
    intake,
    limits,
    pages,
    reports,
    search,
    soak,
    wallboard,
    webhooks,
)

PARTS = {part.__name__.rsplit(".", 1)[1]: part for part in (
    api, search, intake, bulk, export, webhooks, delivery, calls, limits, forecast, reports,
    wallboard, pages, soak,
)}  # fmt: skip


class _Tee(io.TextIOBase):
    """Writes to the terminal and keeps a copy."""

    def __init__(self, terminal) -> None:
        self.terminal, self.kept = terminal, io.StringIO()

    def write(self, text: str) -> int:
        self.terminal.write(text)
        return self.kept.write(text)

    def flush(self) -> None:
        self.terminal.flush()


def run(name: str) -> document.PartRun:
    """Run one part, its output shown and kept, with the facts of its run."""
    part = PARTS[name]
    facts = document.machine()
    databases = document.databases(dict(os.environ))
    started_at, started = document.now(), time.perf_counter()
    tee = _Tee(sys.stdout)
    with contextlib.redirect_stdout(tee):
        part.main()
    return document.PartRun(
        name=name,
        summary=" ".join(part.__doc__.split("\n\n")[0].split()),
        started=started_at,
        seconds=round(time.perf_counter() - started, 1),
        load=round(facts["load"], 2),
        cores=facts["cores"],
        cpu=facts["cpu"],
        databases=databases,
        settings=document.settings(dict(os.environ)),
        output=tee.kept.getvalue(),
    )


def main(names: list[str]) -> int:
    unknown = [name for name in names if name not in PARTS]
    if unknown:
        print(
            f"unknown part {', '.join(unknown)}: the parts are {' '.join(PARTS)}", file=sys.stderr
        )
        return 2
    failed = []
    for n, name in enumerate(names or list(PARTS)):
        if n:
            print()
        try:
            finished = run(name)
        except Exception:  # the other parts still run; this one's section stays
            traceback.print_exc()
            failed.append(name)
            continue
        document.write([finished], list(PARTS))
        print(f"({name}: {document.PATH.name} written)", file=sys.stderr)
    if failed:
        print(f"failed, their sections left as they were: {' '.join(failed)}", file=sys.stderr)
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
