"""The tenant's do-not-call list.

- `numbers`: add, remove, search the list, and the delivery rule that keeps a task whose
  every number is listed back;
- `list_csv`: the list as a CSV file: import (a report per row) and export.
"""
