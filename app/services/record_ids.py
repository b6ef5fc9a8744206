"""Ids given out once and sorted by time: previewRecordIDs and webhook ids.

A module of its own, importing nothing of the services, so that the trail (`history`) and
the task writes can both use it without importing each other.
"""

from __future__ import annotations

import os
import time


def new_record_id() -> str:
    """A UUID of version 7 (milliseconds, then 74 random bits).

    No id is ever given out twice, and ids made one after another sort one after another,
    so adding tasks appends to the index of ids instead of writing all over it.
    """
    millis = time.time_ns() // 1_000_000 & (2**48 - 1)
    random = int.from_bytes(os.urandom(10), "big")
    value = (
        millis << 80
        | 0x7 << 76  # version 7
        | (random >> 62 & 0xFFF) << 64
        | 0b10 << 62  # RFC 9562 variant
        | random & (2**62 - 1)
    )
    # The UUID's text, formatted directly: bulk loads make one per task and per event.
    text = f"{value:032x}"
    return f"{text[:8]}-{text[8:12]}-{text[12:16]}-{text[16:20]}-{text[20:]}"
