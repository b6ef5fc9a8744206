"""`make bench`: search, intake and webhook claims at scale. Figures only, no time asserted."""

from bench import intake, search, webhooks

if __name__ == "__main__":
    search.main()
    print()
    intake.main()
    print()
    webhooks.main()
