"""Files dropped under an S3 prefix: `<prefix>/<company>/<environment>/<campaign>/<file>.csv`."""

from __future__ import annotations

import tempfile
from collections.abc import Iterator
from pathlib import Path
from typing import Any

from app.services.intake.drops import Dropped, stamped


class S3Drop:
    """A bucket and prefix; needs boto3 (the `connect` extra brings it)."""

    def __init__(self, bucket: str, prefix: str, client) -> None:
        self.bucket, self.prefix, self.client = bucket, prefix.strip("/"), client
        self._scratch: Path | None = None  # made when the first object is downloaded

    def _keys(self) -> Iterator[str]:
        pages = self.client.get_paginator("list_objects_v2").paginate(
            Bucket=self.bucket, Prefix=f"{self.prefix}/" if self.prefix else ""
        )
        for page in pages:
            for entry in page.get("Contents", []):
                yield entry["Key"]

    def pending(self) -> Iterator[Dropped]:
        start = len(self.prefix) + 1 if self.prefix else 0
        for key in sorted(self._keys()):
            parts = key[start:].split("/")
            if len(parts) != 4 or not parts[3] or parts[3].startswith("."):
                continue
            if self._scratch is None:
                self._scratch = Path(tempfile.mkdtemp(prefix="intake-s3-"))
            local = self._scratch / parts[3]
            self.client.download_file(self.bucket, key, str(local))
            yield Dropped(parts[0], parts[1], parts[2], parts[3], local, key)

    def where(self, dropped: Dropped) -> dict[str, Any]:
        return {"kind": "s3", "bucket": self.bucket, "key": dropped.handle, "name": dropped.name}

    def release(self, dropped: Dropped) -> None:
        """The object stays where it is, for the next look; only its download goes."""
        dropped.local.unlink(missing_ok=True)

    def set_aside(self, dropped: Dropped, folder: str, report: Path | None) -> None:
        key = str(dropped.handle)
        target = f"{key.rsplit('/', 1)[0]}/{folder}/{stamped(dropped.name)}"
        self.client.copy_object(
            Bucket=self.bucket, Key=target, CopySource={"Bucket": self.bucket, "Key": key}
        )
        self.client.delete_object(Bucket=self.bucket, Key=key)
        if report is not None and report.exists():
            self.client.upload_file(str(report), self.bucket, f"{target}.report.csv")


def s3_client() -> Any:
    """The S3 client the worker moves dropped objects aside with (boto3's defaults)."""
    import boto3

    return boto3.client("s3")
