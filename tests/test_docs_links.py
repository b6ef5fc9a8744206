"""Every link of README.md and docs/*.md resolves, without the network.

A relative link (to a page, an image, or a file or folder of the code) must name something in
the checkout, and its `#anchor`, on a Markdown page, a heading of that page by GitHub's rules;
`#anchor` alone, a heading of the same page; an http(s) link must be well formed. References
to code are written as links, so that a file moved or renamed fails here until the docs follow.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from functools import cache
from pathlib import Path
from urllib.parse import unquote, urlsplit

import pytest
from markdown_it import MarkdownIt

ROOT = Path(__file__).resolve().parents[1]
PAGES = [ROOT / "README.md", *sorted((ROOT / "docs").glob("*.md"))]
HTML_TARGET = re.compile(r"""\b(?:href|src)\s*=\s*["']([^"']*)["']""", re.IGNORECASE)
HTML_ANCHOR = re.compile(r"""\b(?:id|name)\s*=\s*["']([^"']+)["']""", re.IGNORECASE)
LINE_IN_CODE = re.compile(r"L\d+(-L\d+)?")
_markdown = MarkdownIt("commonmark").enable("table")


@dataclass(frozen=True)
class Link:
    target: str
    line: int  # of the block that holds it, from 1

    def __str__(self) -> str:
        return f"line {self.line}: {self.target}"


def _inline_text(token) -> str:
    """A heading's text as GitHub renders it: markup gone, code and link text kept."""
    return "".join(
        child.content for child in token.children or () if child.type in ("text", "code_inline")
    )


def slug(text: str) -> str:
    """GitHub's anchor for a heading: lower case, punctuation but `-` and `_` dropped,
    each space a hyphen."""
    return re.sub(r"[^\w\- ]", "", text.strip().lower()).replace(" ", "-")


def parse(text: str) -> tuple[list[Link], set[str]]:
    """The page's links and images, and the anchors it offers."""
    tokens = _markdown.parse(text)
    links: list[Link] = []
    anchors: set[str] = set()
    seen: dict[str, int] = {}
    for n, token in enumerate(tokens):
        line = token.map[0] + 1 if token.map else 0
        if token.type == "heading_open":
            base = slug(_inline_text(tokens[n + 1]))
            count = seen.get(base, 0)
            seen[base] = count + 1
            anchors.add(f"{base}-{count}" if count else base)
        elif token.type == "html_block":
            links += [Link(target, line) for target in HTML_TARGET.findall(token.content)]
            anchors.update(HTML_ANCHOR.findall(token.content))
        elif token.type == "inline":
            for child in token.children or ():
                if child.type == "link_open":
                    links.append(Link(str(child.attrs.get("href", "")), line))
                elif child.type == "image":
                    links.append(Link(str(child.attrs.get("src", "")), line))
                elif child.type == "html_inline":
                    links += [Link(target, line) for target in HTML_TARGET.findall(child.content)]
                    anchors.update(HTML_ANCHOR.findall(child.content))
    return links, anchors


@cache
def anchors_of(page: Path) -> frozenset[str]:
    return frozenset(parse(page.read_text(encoding="utf-8"))[1])


def problem(page: Path, link: Link, anchors: set[str], root: Path = ROOT) -> str | None:
    """Why `link` on `page` does not resolve, or None when it does."""
    target = link.target
    if not target.strip():
        return "empty link"
    parts = urlsplit(target)
    if parts.scheme in ("http", "https"):
        host = parts.hostname or ""
        well_formed = (
            parts.netloc
            and (host == "localhost" or re.fullmatch(r"[a-z0-9-]+(\.[a-z0-9-]+)+", host))
            and not re.search(r"\s", target)
        )
        return None if well_formed else "malformed web address"
    if parts.scheme == "mailto":
        return None if "@" in parts.path else "malformed mail address"
    if parts.scheme or parts.netloc:
        return f"unexpected scheme {parts.scheme!r}"
    if not parts.path:
        return None if parts.fragment in anchors else f"no heading #{parts.fragment} on this page"
    if parts.path.startswith("/"):
        return "a path from the site's root; link relative to this page"
    resolved = (page.parent / unquote(parts.path)).resolve()
    if not resolved.is_relative_to(root):
        return "outside the checkout"
    if not resolved.exists():
        return f"no such file: {resolved.relative_to(root)}"
    if not parts.fragment:
        return None
    if resolved.suffix == ".md":
        if parts.fragment in anchors_of(resolved):
            return None
        return f"no heading #{parts.fragment} in {resolved.relative_to(root)}"
    if resolved.is_file() and LINE_IN_CODE.fullmatch(parts.fragment):
        return None
    return f"#{parts.fragment} on a file that has no headings"


def broken(page: Path, root: Path = ROOT) -> list[str]:
    links, anchors = parse(page.read_text(encoding="utf-8"))
    return [
        f"{link}: {why}"
        for link in links
        if (why := problem(page, link, anchors, root)) is not None
    ]


@pytest.mark.parametrize("page", PAGES, ids=lambda page: str(page.relative_to(ROOT)))
def test_every_link_resolves(page):
    problems = broken(page)
    assert not problems, "\n".join([f"{page.relative_to(ROOT)}:", *problems])


def test_every_page_of_the_docs_is_linked_from_the_readme():
    links, _ = parse((ROOT / "README.md").read_text(encoding="utf-8"))
    linked = {(ROOT / urlsplit(link.target).path).resolve() for link in links}
    unlinked = [page.name for page in PAGES[1:] if page not in linked]
    assert not unlinked, f"docs/ pages the README does not link: {', '.join(unlinked)}"


# The checker itself: it must fail on what is broken.


def _page(folder: Path, name: str, text: str) -> Path:
    page = folder / name
    page.parent.mkdir(parents=True, exist_ok=True)
    page.write_text(text, encoding="utf-8")
    anchors_of.cache_clear()
    return page


def test_links_that_resolve_pass(tmp_path):
    _page(tmp_path, "docs/other.md", "# Other page\n\n## The agents' desk\n")
    _page(tmp_path, "app/code.py", "x = 1\n")
    page = _page(
        tmp_path,
        "docs/page.md",
        "# Page\n\n## Storage & scale\n\n"
        "[same page](#storage--scale), [other](other.md#the-agents-desk), "
        "[code](../app/code.py), [line](../app/code.py#L1), [folder](../app/), "
        "[web](https://www.standardwebhooks.com/), <https://pypi.org/project/holidays/>\n\n"
        '| a | b |\n|---|---|\n| [cell](other.md) | x |\n\n<img src="other.md" width="1">\n',
    )
    assert broken(page, tmp_path) == []


@pytest.mark.parametrize(
    ("link", "why"),
    [
        ("[x](missing.md)", "no such file: docs/missing.md"),
        ("[x](other.md#no-such-heading)", "no heading #no-such-heading in docs/other.md"),
        ("[x](#nowhere)", "no heading #nowhere on this page"),
        ("![x](../static/none.png)", "no such file: static/none.png"),
        ('<img src="none.png" alt="x">', "no such file: docs/none.png"),
        ("[x](https://example..com/)", "malformed web address"),
        ("[x](https:/example.com)", "malformed web address"),
        ("[x](http://)", "malformed web address"),
        ("[x](/login)", "a path from the site's root; link relative to this page"),
        ("[x](../../outside.md)", "outside the checkout"),
        ("[x](ftp://example.com/file)", "unexpected scheme 'ftp'"),
        ("[x]()", "empty link"),
    ],
)
def test_a_broken_link_fails_naming_the_link(tmp_path, link, why):
    _page(tmp_path, "docs/other.md", "# Other\n")
    page = _page(tmp_path, "docs/page.md", f"# Page\n\nSee {link}.\n")
    found = broken(page, tmp_path)
    assert len(found) == 1
    assert found[0].startswith("line 3: ")
    assert found[0].endswith(why)


def test_repeated_headings_get_numbered_anchors():
    _, anchors = parse("# Notes\n\n## Cost\n\n## Cost\n\n## `nextTask` and *closing*\n")
    assert anchors == {"notes", "cost", "cost-1", "nextTask-and-closing".lower()}
