"""Demo data for a fresh install (`flask --app wsgi demo seed`): not a domain of its own, it
calls the services as any door does.

- `tenant`: the demo tenant, its queues, campaigns, tasks, supervisor and agents (`seed`).
- `history`: a few days of the agents' made-up past, simulated through the services.
- `calls`: one made-up attempt of that past: a preview, a call, its work codes.
"""
