"""Tenants: a company's environment, and what belongs to it alone.

- `setup`: tenants, their skill queues, user templates and contact-centre instance;
- `api_keys`: API keys issued at random, stored hashed, checked in constant time;
- `ccp`: the Amazon Connect Contact Control Panel a tenant's desk embeds.
"""
