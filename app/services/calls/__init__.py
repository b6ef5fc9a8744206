"""Calls: the attempt ledger (`ledger`), one row per delivery of a task to an agent, opened
by delivery and ended by whatever ends the reservation, in the same transaction; and the
call of an attempt (`dialing`): placed by the desk or the contact flow, its events, its
result."""
