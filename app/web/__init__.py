"""What every door (the JSON APIs, the supervisors' pages, the desk) shares.

- `api_paths`: which paths answer in JSON.
- The JSON doors (the contract's APIs and the Desk API): `api_keys`, a request's API-key
  authentication and its tenant's rate; `bodies`, reading a request body; `json_actions`, the
  skeleton of a door that answers `result` and `message`, with its tenant check; `schemas`
  and `answers`, the pydantic building blocks of request bodies and answers.
- `json_provider`: Flask's JSON through orjson.
- `errors`: app-wide error handlers: JSON on the API paths, an HTML page elsewhere.
- `security`: response headers and cookies that keep the browser side safe.
- `full_disk`: a full disk refuses writes with 507 and keeps reads going.
- `rate_limits`, `rate_limit_failover`: the API's request limit, and counts kept when its
  storage is gone; `sign_in_counts`: the sign-in pages' per-account limit.
- `redaction`: secrets in URLs kept out of the logs.
- `serving`, `serving_heads`: how gunicorn serves the app, and reading a request's head
  before a thread is given to it.
"""
