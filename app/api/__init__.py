"""The JSON APIs of the contract: the Preview Campaign Realtime API (`preview`) and the User
Provisioning API (`users`), their authentication (`auth`), request bodies (`body`, `schemas`),
answers (`responses`, `wire`) and the published OpenAPI document (`openapi`, `catalog`,
`docs`). The Desk API lives with the desk (app/desk)."""
