"""`make bench`: search, intake, webhook claims and delivery at scale. Figures only, no time
asserted."""

from bench import delivery, intake, search, webhooks

if __name__ == "__main__":
    search.main()
    print()
    intake.main()
    print()
    webhooks.main()
    print()
    delivery.main()
