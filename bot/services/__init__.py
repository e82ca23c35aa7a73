"""Use cases: one function per interaction, one transaction, returning a Reply."""
