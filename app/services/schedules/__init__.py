"""When tasks may be worked: hours of operation and calling windows.

- `hours`: a tenant's named schedules (zone, weekly hours, exception dates, public holidays)
  and the skill queues that follow them;
- `opening_hours`: opening hours as people write them (`mon-fri 08:00-18:00`);
- `calendar`: a schedule against the clock: open at a moment, when that next changes;
- `queue_hours`: the delivery rule that keeps a closed queue's tasks back, and why;
- `calling_windows`: a campaign's window read in each task's own zone, its delivery rule and
  the campaign's attempt limit;
- `window_clock`: a window's minutes and which IANA zones are inside it at a moment.
"""
