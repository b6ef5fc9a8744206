"""Searching a campaign's tasks by data items and system keys.

- `query`: the entry points: `search_tasks`, `count_tasks`, `filtered`, `probed`;
- `criteria`: what a search asks: criteria, conditions, the system keys;
- `plan`: how a search reads its tasks, first matches oldest first;
- `items`: a criterion on a data item;
- `trigrams`: CONTAINS and BEGINSWITH through SQLite's trigram table.
"""
