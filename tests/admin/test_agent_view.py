"""The agent view of a task: the spec's special data-item keys, in the service and on both pages.

Each rendering rule is checked on `agent_view` itself and on the standalone agent page; the
task page includes the same partial, which one test with every rule at once compares.
"""

from __future__ import annotations

import pytest

from app.services.tasks.display import agent_view, web_url
from app.services.tasks.validation import ItemInput
from tests.admin.conftest import add_task, page

E164 = "+14155550123"
UNSAFE_URLS = [
    "javascript:alert(1)",
    "JavaScript:alert(document.cookie)",
    " javascript:alert(1)",
    "data:text/html,<script>alert(1)</script>",
    "/relative/path",
    "relative.html",
    "//evil.example/x",
    "http:/x",
    "https://",
    "ftp://files.example/f",
    "mailto:a@example.com",
    "not a url",
]


def items(data) -> list[ItemInput]:
    """ItemInputs from {key: value} or (key, value, displayOrder) tuples."""
    if isinstance(data, dict):
        return [ItemInput(k, v) for k, v in data.items()]
    return [ItemInput(*row) for row in data]


def shown(view) -> list[str]:
    return [d.key for d in view.details]


@pytest.fixture
def render(signed_in, acme, renewals):
    """Add a task with this data and return its standalone agent page."""

    def render_(data):
        task = add_task(renewals, "C1", items(data))
        return page(signed_in, f"/tenants/{acme.id}/tasks/{task.record_id}/agent")

    return render_


def section(page_):
    found = page_.find_all("section", class_="agent-view")
    assert len(found) == 1
    return found[0]


def details(page_) -> list[str]:
    """The keys the agent sees, in order (the clientId item aside)."""
    return [
        div["data-key"]
        for div in section(page_).select("dl.agent-details > div.detail")
        if div["data-key"] != "Id"
    ]


def detail(page_, key: str):
    found = [d for d in section(page_).select("div.detail") if d["data-key"] == key]
    assert len(found) == 1, key
    return found[0]


def banner(page_) -> str:
    return section(page_).select_one(".agent-banner h2").get_text()


# --- Name -------------------------------------------------------------------------------

NAME_CASES = [
    pytest.param({"Name": "Ann Lee", "City": "Oslo"}, ["City"], id="name-only-in-banner"),
    pytest.param(
        {"Name": "Ann Lee", "FullName": "Ann Lee"}, ["FullName"], id="repeated-under-another-key"
    ),
]


@pytest.mark.parametrize(("data", "expected"), NAME_CASES)
def test_name_is_the_banner_not_a_detail(data, expected):
    view = agent_view(items(data))
    assert view.banner == "Ann Lee"
    assert shown(view) == expected


@pytest.mark.parametrize(("data", "expected"), NAME_CASES)
def test_name_is_rendered_as_the_banner_not_a_detail(render, data, expected):
    shown_page = render(data)
    assert banner(shown_page) == "Ann Lee"
    assert details(shown_page) == expected
    assert "Name" not in [dt.get_text() for dt in section(shown_page).find_all("dt")]


# --- Order ------------------------------------------------------------------------------

ORDER_CASES = [
    pytest.param([("B", "1"), ("A", "2"), ("C", "3")], ["B", "A", "C"], id="stored-order"),
    pytest.param(
        [("B", "1", 2), ("A", "2", 3), ("C", "3", 1)], ["C", "B", "A"], id="by-display-order"
    ),
    pytest.param(
        [("X", "1"), ("Y", "2", 5), ("Z", "3"), ("W", "4", 1)],
        ["W", "Y", "X", "Z"],
        id="unordered-after-ordered-in-stored-order",
    ),
]


@pytest.mark.parametrize(("data", "expected"), ORDER_CASES)
def test_details_follow_display_order(data, expected):
    assert shown(agent_view(items([("Name", "Ann"), *data]))) == expected


@pytest.mark.parametrize(("data", "expected"), ORDER_CASES)
def test_rendered_details_follow_display_order(render, data, expected):
    assert details(render([("Name", "Ann"), *data])) == expected


# --- Phones -----------------------------------------------------------------------------

PHONE_KEYS = ["Phone", "mobilePhone", "HOME_PHONE", "Telephone2"]


@pytest.mark.parametrize("key", PHONE_KEYS)
def test_phone_keys_dial(key):
    (one,) = agent_view(items({key: E164})).details
    assert (one.kind, one.href, one.value) == ("phone", f"tel:{E164}", E164)


@pytest.mark.parametrize("key", PHONE_KEYS)
def test_phone_keys_render_a_tel_link_with_an_icon(render, key):
    link = detail(render({"Name": "Ann", key: E164}), key).find("a")
    assert link["href"] == f"tel:{E164}"
    assert link.find("img") is not None
    assert link.get_text(strip=True) == E164


def test_an_empty_phone_is_plain_text(render):
    shown_detail = detail(render({"Name": "Ann", "Phone": ""}), "Phone")
    assert shown_detail.find("a") is None
    assert shown_detail.dd.get_text(strip=True) == ""


@pytest.mark.parametrize(("key", "value"), [("Phone", ""), ("Phone", "555-1234"), ("Mobile", E164)])
def test_only_e164_numbers_under_phone_keys_dial(key, value):
    (one,) = agent_view(items({key: value})).details
    assert (one.kind, one.href) == ("text", None)


def test_a_number_under_another_key_does_not_dial(render):
    assert detail(render({"Name": "Ann", "Mobile": E164}), "Mobile").find("a") is None


# --- Highlight, Hidden and the keys never shown ------------------------------------------

HIGHLIGHT_CASES = [
    pytest.param("A|C", {"A", "C"}, id="pipe-list"),
    pytest.param(" A | C ", {"A", "C"}, id="spaces-around-names"),
    pytest.param("B", {"B"}, id="one-name"),
    pytest.param("A|Nope", {"A"}, id="unknown-name"),
    pytest.param("ALL", {"A", "B", "C"}, id="ALL"),
]
ABC = {"Name": "Ann", "A": "1", "B": "2", "C": "3"}


@pytest.mark.parametrize(("highlight", "marked"), HIGHLIGHT_CASES)
def test_highlight_marks_items(highlight, marked):
    view = agent_view(items({**ABC, "Highlight": highlight}))
    assert {d.key for d in view.details if d.highlighted} == marked
    assert shown(view) == ["A", "B", "C"]


@pytest.mark.parametrize(("highlight", "marked"), HIGHLIGHT_CASES)
def test_highlighted_items_are_rendered_marked(render, highlight, marked):
    shown_page = render({**ABC, "Highlight": highlight})
    assert {k for k in details(shown_page) if "highlighted" in detail(shown_page, k)["class"]} == (
        marked
    )


HIDDEN_CASES = [
    pytest.param("A", ["B", "C"], id="one-name"),
    pytest.param("A|C", ["B"], id="pipe-list"),
    pytest.param("Nope", ["A", "B", "C"], id="unknown-name"),
]


@pytest.mark.parametrize(("hidden", "expected"), HIDDEN_CASES)
def test_hidden_hides_items(hidden, expected):
    assert shown(agent_view(items({**ABC, "Hidden": hidden}))) == expected


@pytest.mark.parametrize(("hidden", "expected"), HIDDEN_CASES)
def test_hidden_items_are_not_rendered(render, hidden, expected):
    assert details(render({**ABC, "Hidden": hidden})) == expected


NEVER_SHOWN = [
    pytest.param({"Highlight": "A"}, id="Highlight"),
    pytest.param({"Hidden": "Nope"}, id="Hidden"),
    pytest.param({"SkillQueue": "Support"}, id="SkillQueue"),
    pytest.param({"ItemTimeZone": "Europe/London"}, id="ItemTimeZone"),
    pytest.param(
        {"Highlight": "ALL", "Hidden": "B", "SkillQueue": "Support", "ItemTimeZone": "UTC"},
        id="all-four",
    ),
]


@pytest.mark.parametrize("special", NEVER_SHOWN)
def test_highlight_hidden_and_the_system_items_are_never_shown(special):
    assert set(shown(agent_view(items({"A": "1", **special})))) == {"A"}


@pytest.mark.parametrize("special", NEVER_SHOWN)
def test_highlight_hidden_and_the_system_items_are_never_rendered(render, special):
    shown_page = render({"Name": "Ann", "A": "1", **special})
    assert details(shown_page) == ["A"]
    labels = [dt.get_text() for dt in section(shown_page).find_all("dt")]
    assert not {"Highlight", "Hidden", "SkillQueue", "ItemTimeZone"} & set(labels)


# --- Links and buttons ------------------------------------------------------------------

LINK_CASES = [
    pytest.param("Docs_link", "https://example.com/doc?a=1&b=2", "link", "Docs", id="link"),
    pytest.param("Pay now_button", "http://pay.example/x", "button", "Pay now", id="button"),
    pytest.param("Map_link", "HTTPS://MAPS.EXAMPLE/", "link", "Map", id="upper-case-scheme"),
]


@pytest.mark.parametrize(("key", "url", "kind", "label"), LINK_CASES)
def test_links_and_buttons_are_labelled_without_their_suffix(key, url, kind, label):
    (one,) = agent_view(items({key: url})).details
    assert (one.kind, one.label, one.href) == (kind, label, url)


@pytest.mark.parametrize(("key", "url", "kind", "label"), LINK_CASES)
def test_links_and_buttons_open_a_new_window(render, key, url, kind, label):
    shown_detail = detail(render({"Name": "Ann", key: url}), key)
    link = shown_detail.find("a")
    assert link["href"] == url
    assert link.get_text(strip=True) == label
    assert link["target"] == "_blank"
    assert set(link["rel"]) == {"noopener", "noreferrer"}
    assert link.get("role") == ("button" if kind == "button" else None)
    assert shown_detail.dt.get_text(strip=True) == label


@pytest.mark.parametrize("suffix", ["_link", "_button"])
@pytest.mark.parametrize("url", UNSAFE_URLS)
def test_only_http_urls_become_links_or_buttons(url, suffix):
    assert web_url(url) is None
    (one,) = agent_view(items({f"Go{suffix}": url})).details
    assert (one.kind, one.href, one.value) == ("text", None, url)


@pytest.mark.parametrize("url", UNSAFE_URLS)
def test_other_urls_render_as_inert_text(render, url):
    shown_page = render({"Name": "Ann", "Go_link": url, "Go_button": url})
    for key in ("Go_link", "Go_button"):
        shown_detail = detail(shown_page, key)
        assert shown_detail.find(href=True) is None
        assert shown_detail.find(role="button") is None
        assert shown_detail.dd.get_text() == url
    hrefs = [a["href"] for a in shown_page.find_all(href=True)]
    assert not [h for h in hrefs if h.strip().lower().startswith(("javascript:", "data:", "//"))]


# --- Escaping ---------------------------------------------------------------------------

HOSTILE = [
    pytest.param("Note", "<script>alert(1)</script>", id="script-value"),
    pytest.param("Note", '"><img src=x onerror=alert(1)>', id="attribute-breaking-value"),
    pytest.param("<b>Bold</b>", "<i>x</i>", id="html-key"),
    pytest.param('x" onmouseover="alert(1)', "v", id="attribute-breaking-key"),
    pytest.param("<em>Go</em>_link", "https://example.com/", id="html-link-label"),
    pytest.param("<em>Call</em>_phone", E164, id="html-phone-key"),
]


def assert_no_live_markup(page_) -> None:
    """No script but the app's own files, and no event-handler attribute, on the page."""
    for script in page_.find_all("script"):
        assert script.get("src", "").startswith("/static/") and not script.get_text(strip=True)
    for element in page_.find_all(True):
        assert not [a for a in element.attrs if a.lower().startswith("on")], element


@pytest.mark.parametrize(("key", "value"), HOSTILE)
def test_every_key_and_value_is_escaped(render, key, value):
    shown_page = render({"Name": "<script>alert('name')</script>", key: value})
    assert banner(shown_page) == "<script>alert('name')</script>"
    shown_detail = detail(shown_page, key)
    assert shown_detail.dt.get_text(strip=True) in (key, key.removesuffix("_link"))
    if not shown_detail.find("a"):
        assert shown_detail.dd.get_text() == value
    view = section(shown_page)
    assert not view.find_all(["script", "b", "i", "em"])
    assert all(img["src"].startswith("/static/") for img in view.find_all("img"))
    assert_no_live_markup(shown_page)


def test_the_task_page_shows_the_same_agent_view_as_the_agent_page(render, signed_in):
    data = [
        ("Name", "<b>Ann</b>"),
        ("Late", "x"),
        ("Early", "y", 1),
        ("Phone", E164),
        ("Docs_link", "https://example.com/"),
        ("Pay_button", "http://pay.example/"),
        ("Bad_link", "javascript:alert(1)"),
        ("Note", "<script>alert(1)</script>"),
        ("Secret", "s"),
        ("Highlight", "Late|Phone"),
        ("Hidden", "Secret"),
        ("SkillQueue", "Support"),
    ]
    agent_page = render(data)
    task_page = page(signed_in, agent_page.find("a", string="C1")["href"])
    assert str(section(task_page)) == str(section(agent_page))
    assert_no_live_markup(task_page)  # the values are also in the page's form fields
    assert not task_page.find_all("b")
    assert details(task_page) == [
        "Early", "Late", "Phone", "Docs_link", "Pay_button", "Bad_link", "Note"
    ]  # fmt: skip
