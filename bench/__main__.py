"""`make bench`: search at scale, then intake at scale. Figures only; nothing asserts a time."""

from bench import intake, search

if __name__ == "__main__":
    search.main()
    print()
    intake.main()
