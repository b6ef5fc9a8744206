"""Whether a task may be called now: what every rule of it is evaluated for.

- `seat`: one agent asking for work at one moment (`Seat`), and what a rule answers when it
  keeps tasks back (`Blocked`, `OtherRules`). It sits beneath the packages that hold the
  rules (delivery, campaigns, schedules, dnc), so each may use it without importing another.
"""
