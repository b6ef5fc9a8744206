"""Bulk actions on a campaign's search result: change the status, transfer, set or clear
the preferred agent, or delete every matching task.

- `actions`: the action and its fields, their plain words, and the single change's own
  service function applied to a batch.
- `jobs`: the job record: confirmed, run by the worker in batches, resumed after a kill.
- `report`: the end report: counts, reasons, and the failures as a CSV.
"""
