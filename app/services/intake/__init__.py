"""Intake files in, exports out: bulk loading and streaming export of a campaign's tasks.

An intake file is a CSV whose first column holds the clientId (its header is the
campaign's clientId field name) and whose other columns are data items. Every row obeys
the same rules as an add or update through the API (`app.services.tasks.validation`).
"""
