"""The JSON APIs of the contract: the Preview Campaign Realtime API (`preview`) and the User
Provisioning API (`users`), their request bodies (`schemas`), answers (`responses`, `wire`)
and the published OpenAPI document (`openapi`, `catalog`, `docs`). The Desk API lives with
the desk (app/desk); what the JSON doors share (authentication, bodies, the building blocks
of their schemas) is in app/web."""
