"""Contact limits: how often the tenant's numbers, persons and tasks may be called.

- `limits`: the tenant's limits (add, list, remove, in words) and its person key.
- `counts`: the marks every call placed and every contact made leave, counted in the
  rolling window of each limit: `admit_call` (the check at the click, under the scope's
  lock, in the call's own transaction) and `verdicts` (whether tasks may be called at a
  moment, and until when not: what delivery asks).
- `contacts`: the contact marks, written with the attempt counted a contact.

It sits beneath delivery and the dialer (which call it) and above the tenants' and the
calls' packages; it reads the models only.
"""
