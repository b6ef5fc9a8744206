"""A SCIM filter (RFC 7644, section 3.4.2.2) as SQL on the tenant's users.

scim2-models parses the filter (a refusal is `invalidFilter`); this walks its tree into a
SQLAlchemy condition. Filterable: `userName` (without regard to case, as its schema says),
`externalId` (exactly), `emails.value` and `emails[value …]` (without regard to case),
`displayName` (the two names), `active`, `meta.created` and `meta.lastModified`; with
`eq`, `ne`, `co`, `sw`, `ew`, `pr`, `gt`, `ge`, `lt`, `le`, `and`, `or`, `not` and
brackets. On groups: `displayName` (without regard to case), `externalId`, `meta.*` and
`members.value eq` (`members[value eq …]`, `members pr`). Any other attribute is
`invalidFilter`, naming it.
"""

from __future__ import annotations

from datetime import datetime

from scim2_models import Group, InvalidFilterException, ScimFilter
from scim2_models.path import FilterVisitor, LogicalOperator
from sqlalchemy import ColumnElement, and_, func, not_, or_

from app.models import DirectoryGroup, User
from app.scim.resources import ScimUser

# attribute (lower case) -> (column, compared without regard to case)
_USER_COLUMNS = {
    "username": (User.login_user_id, True),
    "externalid": (User.external_id, False),
    "displayname": (User.first_name + " " + User.last_name, True),
    "active": (User.active, False),
    "meta.created": (User.created_at, False),
    "meta.lastmodified": (func.coalesce(User.updated_at, User.created_at), False),
}
EMAILS = "emails"


def _compare(column, op: str, value, folded: bool, moment: bool) -> ColumnElement[bool]:
    if isinstance(value, str) and folded:
        column, value = func.lower(column), value.lower()
    if moment and isinstance(value, str):
        value = _moment(value)
    match op:
        case "eq":
            return column.is_(None) if value is None else column == value
        case "ne":
            return column.is_not(None) if value is None else or_(column != value, column.is_(None))
        case "co":
            return column.contains(str(value), autoescape=True)
        case "sw":
            return column.startswith(str(value), autoescape=True)
        case "ew":
            return column.endswith(str(value), autoescape=True)
        case "gt":
            return column > value
        case "ge":
            return column >= value
        case "lt":
            return column < value
        case "le":
            return column <= value
    raise InvalidFilterException(detail=f"operator {op} is not supported")


def _moment(text: str) -> datetime:
    try:
        return datetime.fromisoformat(text.replace("Z", "+00:00"))
    except ValueError:
        raise InvalidFilterException(detail=f"'{text}' is not a date-time") from None


def _email_condition(op: str, value) -> ColumnElement[bool]:
    """emails.value, on the wrapped list of every address (`,a@x.com,b@y.com,`)."""
    index = User.email_index
    text = str(value).lower() if value is not None else None
    match op:
        case "pr":
            return index != ""
        case "eq":
            return index.contains(f",{text},", autoescape=True)
        case "ne":
            return not_(index.contains(f",{text},", autoescape=True))
        case "co":
            return index.contains(text, autoescape=True)
        case "sw":
            return index.contains(f",{text}", autoescape=True)
        case "ew":
            return index.contains(f"{text},", autoescape=True)
    raise InvalidFilterException(detail=f"emails.value cannot be compared with {op}")


class _UserConditions(FilterVisitor):
    COLUMNS = _USER_COLUMNS
    MULTI = EMAILS

    def __init__(self, within: str | None = None):
        self.within = within  # the attribute of an enclosing value path: emails[...]

    def _multi(self, op: str, value) -> ColumnElement[bool]:
        return _email_condition(op, value)

    def _name(self, path) -> str:
        if path.uri:
            raise InvalidFilterException(detail=f"{path} cannot be filtered on")
        attr = path.attr.lower()
        if self.within:
            return f"{self.within}.{attr}"
        return f"{attr}.{path.sub_attr.lower()}" if path.sub_attr else attr

    def _condition(self, path, op: str, value) -> ColumnElement[bool]:
        name = self._name(path)
        if name in (self.MULTI, f"{self.MULTI}.value"):
            return self._multi(op, value)
        if name not in self.COLUMNS:
            raise InvalidFilterException(detail=f"{path} cannot be filtered on")
        column, folded = self.COLUMNS[name]
        if op == "pr":
            return column.is_not(None)
        return _compare(column, op, value, folded, name.startswith("meta."))

    def visit_comparison(self, node):
        return self._condition(node.attr_path, node.op.value, node.value)

    def visit_present(self, node):
        return self._condition(node.attr_path, "pr", None)

    def visit_not(self, node):
        return not_(self.visit(node.expr))

    def visit_logical_expr(self, node):
        join = and_ if node.op == LogicalOperator.and_ else or_
        return join(*(self.visit(term) for term in node.terms))

    def visit_value_path(self, node):
        if node.attr_path.attr.lower() != self.MULTI:
            raise InvalidFilterException(detail=f"{node.attr_path}[…] cannot be filtered on")
        return type(self)(self.MULTI).visit(node.val_filter)


_GROUP_COLUMNS = {
    "displayname": (DirectoryGroup.display_name, True),
    "externalid": (DirectoryGroup.external_id, False),
    "meta.created": (DirectoryGroup.created_at, False),
    "meta.lastmodified": (DirectoryGroup.updated_at, False),
}


class _GroupConditions(_UserConditions):
    """The same grammar on groups: `members.value` (`members[value eq …]`) names a member."""

    COLUMNS = _GROUP_COLUMNS
    MULTI = "members"

    def _multi(self, op: str, value) -> ColumnElement[bool]:
        if op == "pr":
            return DirectoryGroup.members.any()
        if op != "eq":
            raise InvalidFilterException(detail=f"members.value cannot be compared with {op}")
        return DirectoryGroup.members.any(User.resource_id == str(value))


def group_condition(found) -> ColumnElement[bool]:
    """The groups a filter (parsed, or its text) selects, as a condition."""
    if isinstance(found, str):
        found = ScimFilter[Group](found)
    return _GroupConditions().visit(found.ast)


def user_condition(found: ScimFilter | str) -> ColumnElement[bool]:
    """The users a filter (parsed, or its text) selects, as a condition
    (InvalidFilterException when it is not one the grammar and these attributes can say)."""
    if isinstance(found, str):
        found = ScimFilter[ScimUser](found)
    return _UserConditions().visit(found.ast)
