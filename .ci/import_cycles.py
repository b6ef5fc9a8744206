"""Refuse any import cycle between the modules of app/ (`make lint`, and a test of the suite).

Every import counts, at the top of a module or inside a function, under TYPE_CHECKING or
not: a cycle dodged by a late import is still a cycle. The graph is grimp's (the library
import-linter is built on); each cycle is printed with the line of every import in it.
Exit status 1 when there is one.
"""

from __future__ import annotations

import sys

import grimp


def cycles(graph: grimp.ImportGraph) -> list[list[str]]:
    """The graph's strongly connected groups of two or more modules (Tarjan's algorithm,
    without recursion), each sorted, in name order; a module importing itself counts too."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    found: list[list[str]] = []
    for root in sorted(graph.modules):
        if root in index:
            continue
        work = [(root, iter(sorted(graph.find_modules_directly_imported_by(root))))]
        index[root] = low[root] = len(index)
        stack.append(root)
        on_stack.add(root)
        while work:
            module, targets = work[-1]
            target = next(targets, None)
            if target is not None:
                if target not in index:
                    index[target] = low[target] = len(index)
                    stack.append(target)
                    on_stack.add(target)
                    imported = graph.find_modules_directly_imported_by(target)
                    work.append((target, iter(sorted(imported))))
                elif target in on_stack:
                    low[module] = min(low[module], index[target])
                continue
            work.pop()
            if work:
                parent = work[-1][0]
                low[parent] = min(low[parent], low[module])
            if low[module] == index[module]:
                group = []
                while True:
                    member = stack.pop()
                    on_stack.discard(member)
                    group.append(member)
                    if member == module:
                        break
                selfish = graph.direct_import_exists(importer=module, imported=module)
                if len(group) > 1 or selfish:
                    found.append(sorted(group))
    return sorted(found)


def describe(graph: grimp.ImportGraph, group: list[str]) -> str:
    """One cycle as lines `a -> b (l.N)` for each import inside it."""
    members = set(group)
    lines = [f"Import cycle among {len(group)} modules:"]
    for importer in group:
        for imported in sorted(graph.find_modules_directly_imported_by(importer) & members):
            details = graph.get_import_details(importer=importer, imported=imported)
            at = ", ".join(f"l.{detail['line_number']}" for detail in details)
            lines.append(f"  {importer} -> {imported} ({at})")
    return "\n".join(lines)


def main(package: str = "app") -> int:
    graph = grimp.build_graph(package, cache_dir=None)
    found = cycles(graph)
    for group in found:
        print(describe(graph, group))
    if not found:
        print(f"No import cycle among the {len(graph.modules)} modules of {package}.")
    return 1 if found else 0


if __name__ == "__main__":
    sys.exit(main(*sys.argv[1:]))
