"""A full disk: a write is refused with 507 Insufficient Storage, reads go on, and the log
says so once a minute with how many writes it refused, not with a traceback per request.

What counts as full, and the once-a-minute count, are app/db/full_disk.py's.
"""

from __future__ import annotations

from werkzeug.exceptions import HTTPException


class InsufficientStorage(HTTPException):
    code = 507
    description = (
        "The server's storage is full, so nothing was changed. Reading still works; "
        "try again once space has been freed."
    )
