"""`make bench`: every figure of the service at scale, each beside its ceiling where it has
one. Figures only, no time asserted. `python -m bench.<name>` runs one part alone."""

from bench import api, bulk, delivery, export, intake, search, soak, webhooks

PARTS = (api, search, intake, bulk, export, webhooks, delivery, soak)

if __name__ == "__main__":
    for n, part in enumerate(PARTS):
        if n:
            print()
        part.main()
