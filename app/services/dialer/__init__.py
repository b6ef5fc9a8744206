"""The dialer: the call of an agent's attempt.

- `placing`: placing the call (checked again at the click by delivery's rules).
- `call_events`: its events and its result, whoever reports them.
- `contact_flow`: following the calls the contact centre places, through its API.
"""
