"""Campaigns.

- `catalogue`: create, find, list and edit campaigns;
- `life_cycle`: pause, resume, archive, restore, and the delivery rule that follows.
"""
