"""The campaign page's search, read from its query string: `k`, `c`, `v` rows, a state `s`,
`i` (letters match in either case) and `add` (the form's "Add a condition" button).

The form obeys the API's limits (how many criteria, how long a key or a value) and offers
the worked state as a choice. A search outside them is refused with a message naming the
row and the field at fault, rather than run to match nothing or fail later; a value typed
without a key is such a refusal, never a row silently dropped. Ignoring case is the
supervisors' option only: the Preview API's conditions stay exact.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from werkzeug.datastructures import MultiDict

from app.models import WorkedState
from app.services.search.criteria import Condition, Criterion
from app.services.tasks.validation import MAX_CRITERIA, criterion_problem

STATE_KEY = "sys_worked_state"
STATES = [state.value for state in WorkedState]


@dataclass(frozen=True)
class SearchRow:
    key: str
    condition: str
    value: str


@dataclass
class Search:
    """A search as the form sent it, and what is wrong with it."""

    rows: list[SearchRow]
    state: str = ""  # the state choice; "" for any state
    # A group of the Progress panel the results are narrowed to ("deliverable",
    # "kept_back.dnc", ...; see progress.groups); "" for none.
    group: str = ""
    ignore_case: bool = False
    # Empty rows the form shows below the search's own (one more per "Add a condition").
    blank_rows: int = 1
    criteria: list[Criterion] = field(default_factory=list)
    problems: list[str] = field(default_factory=list)
    # The fields at fault: (row index, "k" | "c" | "v"), or (None, "s") for the state choice.
    faults: set[tuple[int | None, str]] = field(default_factory=set)
    # The messages by the row they are about ("s": the state choice; None: the search as a
    # whole), which the page shows at that row rather than far above it.
    said: dict[int | str | None, list[str]] = field(default_factory=dict)

    @property
    def rows_at_fault(self) -> list[int]:
        """The numbers of the rows at fault, as the page numbers them."""
        return sorted(row + 1 for row in self.said if isinstance(row, int))

    @property
    def error(self) -> str | None:
        return " ".join(self.problems) or None

    @property
    def args(self) -> dict[str, list[str] | str]:
        """The query string that repeats this search (for page links and the download)."""
        args: dict[str, list[str] | str] = {
            "k": [row.key for row in self.rows],
            "c": [row.condition for row in self.rows],
            "v": [row.value for row in self.rows],
        }
        if self.state:
            args["s"] = self.state
        if self.ignore_case:
            args["i"] = "1"
        if self.group:
            args["group"] = self.group
        return args

    def refuse(self, row: int | None, name: str, message: str) -> None:
        self.problems.append(message)
        self.faults.add((row, name))
        self.said.setdefault("s" if name == "s" else row, []).append(message)

    def refused_by_service(self, message: str) -> None:
        """The search service refused a criterion (e.g. a whole number expected for a
        `sys_` key): told at the first row whose key the message names, else as a whole."""
        named = (i for i, row in enumerate(self.rows) if row.key and row.key in message)
        row = next(named, None)
        if row is None:
            self.refuse(None, "search", message[0].upper() + message[1:] + ".")
        else:
            self.refuse(row, "v", f"Row {row + 1}: {message}.")


def search_rows(args: MultiDict) -> list[SearchRow]:
    """The rows of the search form that hold something (a key, or a value without one)."""
    keys, conditions, values = args.getlist("k"), args.getlist("c"), args.getlist("v")
    return [
        SearchRow(k.strip(), c, v)
        for k, c, v in zip(keys, conditions, values, strict=False)
        if k.strip() or v
    ]


def _blank_rows(args: MultiDict, filled: int) -> int:
    """The empty rows to show: one; after "Add a condition", one more than the form sent
    (within the limit of rows a search may have)."""
    if "add" not in args:
        return 1
    sent = len(args.getlist("k")) - filled
    return max(1, min(sent + 1, MAX_CRITERIA - filled))


def _states() -> str:
    return ", ".join(STATES)


def read_search(args: MultiDict) -> Search:
    """The search the query string asks for; `problems` says why it may not run."""
    rows = search_rows(args)
    search = Search(
        rows,
        args.get("s", "").strip(),
        args.get("group", "").strip(),
        ignore_case=args.get("i") == "1",
        blank_rows=_blank_rows(args, len(rows)),
    )
    if search.state and search.state not in STATES:
        search.refuse(None, "s", f"State must be one of {_states()}.")
    count = len(search.rows) + bool(search.state)
    if count > MAX_CRITERIA:
        search.refuse(
            None, "count", f"A search has at most {MAX_CRITERIA} rows; this one has {count}."
        )
    for index, row in enumerate(search.rows):
        number = index + 1
        if not row.key:
            search.refuse(
                index, "k", f"Row {number}: a value needs a key: type the key, or clear the value."
            )
        elif row.condition not in set(Condition):
            search.refuse(index, "c", f"Row {number}: '{row.condition}' is not a search condition.")
        elif problem := criterion_problem(row.key, row.value):
            name, reason = problem.split(" ", 1)
            search.refuse(index, name[0], f"Row {number}: the {name} {reason}.")
        elif row.key == STATE_KEY and row.value not in STATES:
            search.refuse(index, "v", f"Row {number}: the state must be one of {_states()}.")
        else:
            condition = Condition(row.condition)
            search.criteria.append(Criterion(row.key, condition, row.value, search.ignore_case))
    if search.state:
        search.criteria.append(Criterion(STATE_KEY, Condition.EQUALS, search.state))
    if search.problems:
        search.criteria = []
    return search


def criteria_from_args(args: MultiDict) -> tuple[list[Criterion], str | None]:
    """The search's criteria, or the reason they are not valid."""
    search = read_search(args)
    return search.criteria, search.error
