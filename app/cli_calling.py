"""Operator commands for when a campaign's tasks may be worked: `flask --app wsgi campaign
set-window|set-max-attempts` (added to the `campaign` group)."""

from __future__ import annotations
