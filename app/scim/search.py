"""`POST /.search` (RFC 7644, 3.4.3): a search of every resource type at once, users
first, then groups. A filter one type cannot say (`userName` of a group) selects none of
that type; one that neither can say is `invalidFilter`."""

from __future__ import annotations

from scim2_models import Context, Group, InvalidFilterException, SearchRequest

from app.extensions import db
from app.scim.access import base_url, body, bp
from app.scim.groups import groups_where
from app.scim.resources import ScimUser, group_resource, user_resource
from app.scim.search_pages import listed, total_of, window
from app.scim.users import users_where


def _or_none(where, found):
    try:
        return where(found)
    except InvalidFilterException:
        return None


@bp.post("/.search")
def search_everything():
    wanted = SearchRequest[ScimUser | Group].model_validate(body(), scim_ctx=Context.SEARCH_REQUEST)
    queries = [
        (query, shown)
        for query, shown in (
            (_or_none(users_where, wanted.filter), user_resource),
            (_or_none(groups_where, wanted.filter), group_resource),
        )
        if query is not None
    ]
    if not queries:
        raise InvalidFilterException(detail="no resource type has the attributes of this filter")
    start, count = window(wanted)
    skip, left, total, found = start - 1, count, 0, []
    for query, shown in queries:
        size = total_of(query)
        total += size
        if left and skip < size:
            rows = db.session.scalars(query.offset(skip).limit(left)).all()
            found += [shown(row, base_url()) for row in rows]
            left -= len(rows)
        skip = max(skip - size, 0)
    return listed(ScimUser | Group, total, wanted, found)
