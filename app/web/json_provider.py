"""orjson behind Flask's JSON: search answers carry up to thousands of tasks."""

from __future__ import annotations

from typing import Any

import orjson
from flask.json.provider import JSONProvider


class OrjsonProvider(JSONProvider):
    def dumps(self, obj: Any, **kwargs: Any) -> str:
        return orjson.dumps(obj, option=orjson.OPT_NON_STR_KEYS).decode()

    def loads(self, s: str | bytes, **kwargs: Any) -> Any:
        return orjson.loads(s)

    def response(self, *args: Any, **kwargs: Any):
        """The JSON answer, ending in a newline as Flask's own does: answers printed one after
        another (curl in a shell) each end their line."""
        obj = self._prepare_response_obj(args, kwargs)
        options = orjson.OPT_NON_STR_KEYS | orjson.OPT_APPEND_NEWLINE
        return self._app.response_class(
            orjson.dumps(obj, option=options), mimetype="application/json"
        )
