"""Work codes: what an agent picks when closing a task.

- `groups`: the tenant's groups of codes, their codes and the queues they serve;
- `choices`: what closing a task offers and accepts.
"""
