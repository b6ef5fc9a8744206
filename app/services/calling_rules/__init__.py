"""Regional calling rules: when customers in a region may be called, in their local time
(`rules`: the tenant's rules and their changes; `clock`: which zones a rule holds back at
an instant, and when a call is allowed again; `pack`: the maintained US pack). The contact
rules REGION_HOURS, REGION_DAY and REGION_HOLIDAY (contact_rules.engine) read them; a rule's
own contact limit is a contact limit of the region's tasks (contact_limits)."""
