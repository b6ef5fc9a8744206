"""Amazon Connect for the calls' tests: botocore's Stubber on a client of the real
service model, handed to the app as every instance's client."""

from __future__ import annotations

import boto3
import pytest
from botocore.stub import Stubber

INSTANCE_ID = "aaaaaaaa-bbbb-4ccc-8ddd-eeeeeeeeeeee"
REGION = "eu-west-2"
QUEUE_ID = "0c1d2e3f-4a5b-4c6d-8e7f-000000000001"
QUEUE_ARN = f"arn:aws:connect:{REGION}:123456789012:instance/{INSTANCE_ID}/queue/{QUEUE_ID}"
FLOW_ID = "846ec553-a005-41c0-8341-000000000002"
CONTACT_ID = "c0ffee00-0000-4000-8000-000000000003"
TOKEN = "5b2f8a4e-1111-4222-8333-444455556666"
ATTRIBUTES = {"previewRecordID": "42", "campaignName": "Renewals", "clientId": "c1"}


@pytest.fixture
def connect_client(app):
    """The Stubber-wrapped client every Amazon Connect instance of the app gets."""
    client = boto3.client(
        "connect", region_name=REGION, aws_access_key_id="x", aws_secret_access_key="x"
    )
    app.config["CONNECT_CLIENT_FACTORY"] = lambda region: client
    sent: list[str] = []  # the operations asked, answered or not
    client.meta.events.register(
        "provide-client-params.connect", lambda model, **_: sent.append(model.name)
    )
    with Stubber(client) as stubber:
        stubber.sent = sent
        yield stubber
        stubber.assert_no_pending_responses()
