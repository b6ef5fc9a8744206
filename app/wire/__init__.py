"""The wire format: how the domain's values are spelt where they leave the application.

Services take and return domain values (datetimes, snapshots); what the outside reads is
written here, once: the spec's time format and epoch milliseconds (`times`), the camelCase
record of a task (`tasks`), and the JSON of an audit record's fields and of an event's body
(`bodies`). The doors (the Preview and Reports APIs, the desk's JSON, the pages, the
intake files) read and write through it; of the services only the trail's writer does,
serialising the snapshots a change hands it. It imports no door and, of the services, only
the refusal it raises (with the field it names) and the snapshots it renders (import-linter
contracts in pyproject.toml).
"""
