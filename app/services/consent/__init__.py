"""Consent to call: the tenant's ledger of consents given and revoked per number
(`ledger`), and which of a campaign's numbers need one in force (`requirements`). The
contact rule NO_CONSENT (contact_rules.engine) reads both."""
