"""Signing people in through their company's identity provider.

- `providers`: a tenant's identity provider for the desk, or the console's for supervisors:
  set, shown (never its secret), removed; each kind's settings checked by its own module.
- `identity`: who the provider says signed in (`Identity`), and the one rule that turns it
  into a provisioned agent (`agent_for`) or a supervisor (`supervisor_for`).
- `saml`, `oidc`, `ldap`: the three protocols (SAML 2.0 service provider, OpenID Connect
  relying party, directory bind), each from plain values to an `Identity`.
- `oidc_published`: what an OpenID provider publishes (discovery document, keys), kept.
- `sealing`: secrets the service must show a provider, sealed at rest.
- `replays`: assertions and tokens already accepted, refused a second time.
"""
