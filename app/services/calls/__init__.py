"""Calls: the attempt ledger (`ledger`), one row per delivery of a task to an agent, opened
by delivery and ended by whatever ends the reservation, in the same transaction, and the
reports' rollups of it (`rollups`), moved with each flush. Placing an attempt's call and
following it are the dialer's (app/services/dialer)."""
