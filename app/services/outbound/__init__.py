"""Connections the service makes on a tenant's behalf (webhooks): only to the addresses
`addresses` allows."""
