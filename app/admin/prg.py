"""Post/redirect/get for the supervisors' pages: a form that changes something answers
with a redirect, so a reload or Back never sends it again.

- `form_post` registers a form's POST-only URL and answers a GET of it (a copied link,
  a reload of the page a refused form re-rendered there) with a redirect to the page
  that holds the form.
- `hold` and `shown_once` carry what a form made and a page must show once (a new key, a
  signing secret, an invitation link, an import's report) across that redirect: the value
  is kept on the server (app.services.shown_once), the browser's session holds its claim.
"""

from __future__ import annotations

from collections.abc import Callable

from flask import current_app, redirect, request, session, url_for

from app.admin.blueprint import bp
from app.extensions import db
from app.models.types import utcnow
from app.services import shown_once as service

SESSION_KEY = "shown_once"
# Claims a session holds at most (a cookie is small); the one just made is always kept.
MOST_HELD = 8


def form_post(rule: str, page: str) -> Callable:
    """Register the decorated view for POSTs to `rule`; a GET of `rule` redirects to the
    view `page` with the arguments of the URL that it takes."""

    def register(view: Callable) -> Callable:
        bp.add_url_rule(rule, view_func=view, methods=["POST"])
        bp.add_url_rule(
            rule,
            endpoint=f"{view.__name__}_get",
            view_func=lambda **_arguments: redirect(page_url(page)),
            methods=["GET"],
        )
        return view

    return register


def page_url(endpoint: str) -> str:
    """The URL of `endpoint` with the arguments of this request's URL that it takes."""
    (rule, *_) = current_app.url_map.iter_rules(endpoint)
    arguments = request.view_args or {}
    return url_for(endpoint, **{name: arguments[name] for name in rule.arguments})


def hold(slot: str, claim: service.Claim) -> None:
    """Keep the claim on a value for the page that shows it (`slot` names that page's
    value, e.g. ``api_key:3``; a newer value of the same slot replaces the older)."""
    held = {k: v for k, v in dict(session.get(SESSION_KEY) or {}).items() if k != slot}
    held[slot] = claim.as_list()
    session[SESSION_KEY] = dict(list(held.items())[-MOST_HELD:])


def shown_once(slot: str) -> str | None:
    """The value held for `slot`, this once; None when there is none (any more)."""
    held = dict(session.get(SESSION_KEY) or {})
    if slot not in held:
        return None
    claim = service.Claim.from_list(held.pop(slot))
    if held:
        session[SESSION_KEY] = held
    else:
        session.pop(SESSION_KEY)
    if claim is None:
        return None
    value = service.take(claim, now=utcnow())
    db.session.commit()
    return value
