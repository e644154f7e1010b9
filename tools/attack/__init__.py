"""The attack harness of issue 30: kills and failed system calls at every write, hostile names on every printed
line, the guard through pre-commit with every kind of staged entry. Run it with ``python tools/attack``."""
