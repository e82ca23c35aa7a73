"""A local Discord (REST + Gateway) for end-to-end tests and the console.

``Emulator`` serves the API on 127.0.0.1; ``Table``/``Player`` drive it like users at a table.
"""
