"""The contact centre's tests: Amazon Connect through botocore's Stubber."""

from tests.contact_centre.connect_support import connect_client  # noqa: F401
