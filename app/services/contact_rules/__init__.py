"""May this task be called now, and if not, why and until when: the contact rules, once.

- `engine`: every rule by its stable name (STATE, NEXT_EARLIEST_TIME, CAMPAIGN_PAUSED,
  QUEUE_CLOSED, CALLING_WINDOW, DO_NOT_CALL, NO_CONSENT, INVALID_NUMBER, CONTACT_LIMIT,
  ATTEMPT_LIMIT), each defined once: the SQL condition delivery filters by and the progress
  panel counts by, and the explanation of one task (`explain`: each reason's message and
  until when) come from the same definition. Delivery, startCall, the progress panel, the
  Reports API's taskContactability, the task page and the agent view all ask it.

It sits beneath delivery and the dialer, above the packages holding each rule's data
(campaigns, schedules, dnc, consent, contact_limits, calls).
"""
